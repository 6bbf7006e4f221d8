/**
 * RFC 4648 §4/§5 base64 for the browser twins of base64url.ts and base64.ts, which use Node's
 * Buffer. Written out because browsers have only atob/btoa (binary strings, and a lenient
 * atob) and Uint8Array.fromBase64 is not in every engine the console targets nor in Node 20,
 * where these twins are tested against the same vectors. Strictness (alphabet, padding,
 * canonical trailing bits) stays with the callers, exactly as in the Node modules.
 */

const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** `url`: the RFC 4648 §5 alphabet, unpadded; otherwise §4, padded with `=`. */
export function encodeBase64(bytes: Uint8Array, url: boolean): string {
  const alphabet = url ? URL_SAFE : STANDARD;
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += alphabet[n >>> 18]! + alphabet[(n >>> 12) & 63]! + alphabet[(n >>> 6) & 63]! + alphabet[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += alphabet[n >>> 18]! + alphabet[(n >>> 12) & 63]! + (url ? '' : '==');
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += alphabet[n >>> 18]! + alphabet[(n >>> 12) & 63]! + alphabet[(n >>> 6) & 63]! + (url ? '' : '=');
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
 */
export function decodeBase64(text: string): Uint8Array {
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
