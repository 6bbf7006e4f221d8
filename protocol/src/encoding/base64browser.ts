/**
 * The raw RFC 4648 codec under base64.ts and base64url.ts in a browser, where package.json
 * `imports` maps `#platform/base64` (the `browser` condition; base64node.ts is Node's).
 * Written out because browsers have only atob/btoa (binary strings, and a lenient atob) and
 * Uint8Array.fromBase64 is not in every engine the console targets nor in Node 20, where
 * this codec is tested against base64node.ts. Strictness (alphabet, padding, canonical
 * trailing bits) stays with the callers, so both platforms reach the same verdicts.
 */

/** RFC 4648 §4 (`base64`, padded with `=`) or §5 (`base64url`, unpadded), as in base64node.ts. */
export type Alphabet = 'base64' | 'base64url';

const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * The text of `bytes` in `alphabet`: RFC 4648 §5 unpadded, or §4 padded with `=`.
 *
 * @example
 * encodeBase64(new Uint8Array([0xfb, 0xff]), 'base64url'); // '-_8'
 */
export function encodeBase64(bytes: Uint8Array, alphabet: Alphabet): string {
  const url = alphabet === 'base64url';
  const digits = url ? URL_SAFE : STANDARD;
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += digits[n >>> 18]! + digits[(n >>> 12) & 63]! + digits[(n >>> 6) & 63]! + digits[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += digits[n >>> 18]! + digits[(n >>> 12) & 63]! + (url ? '' : '==');
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += digits[n >>> 18]! + digits[(n >>> 12) & 63]! + digits[(n >>> 6) & 63]! + (url ? '' : '=');
  }
  return out;
}

const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) {
  DECODE[STANDARD.charCodeAt(i)] = i;
  DECODE[URL_SAFE.charCodeAt(i)] = i;
}

/**
 * The bytes of base64 text in either alphabet, trailing `=` ignored, trailing bits dropped
 * (as Buffer.from does). Callers have already checked the characters; anything else is -1
 * and makes this throw.
 *
 * @example
 * decodeBase64('-_8', 'base64url'); // Uint8Array [0xfb, 0xff]
 */
export function decodeBase64(text: string, _alphabet: Alphabet): Uint8Array {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let bits = 0;
  let value = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? (DECODE[code] as number) : -1;
    if (digit < 0) throw new Error(`not a base64 character at ${i}`);
    value = (value << 6) | digit;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (value >>> bits) & 0xff;
    }
  }
  return out;
}
