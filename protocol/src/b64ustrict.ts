/**
 * The rules of strict unpadded base64url (RFC 4648 §5, docs/PROTOCOL.md "Notation" `b64u(x)`)
 * that base64url.ts (Buffer) and browser/base64url.ts (no Buffer) share; each supplies only
 * the raw codec. Decoding accepts exactly one spelling of each byte string: the one the
 * encoder emits.
 */
import { Base64urlError } from './errors.js';

const ALPHABET = /^[A-Za-z0-9_-]*$/;

export interface RawB64u {
  /** Lenient decode of text already known to use the base64url alphabet. */
  decode(text: string): Uint8Array;
  encode(bytes: Uint8Array): string;
}

/**
 * Decode strict unpadded base64url with `raw`. Throws {@link Base64urlError} on `=`, `+`,
 * `/`, whitespace or any other character outside `[A-Za-z0-9_-]`, on a length ≡ 1 (mod 4),
 * and on non-zero trailing bits (so that the re-encoding equals the input: one byte string,
 * one text).
 *
 * @example
 * strictB64uDecode('-_8', raw); // Uint8Array [0xfb, 0xff]
 * strictB64uDecode('-_9', raw); // throws Base64urlError (non-canonical trailing bits)
 */
export function strictB64uDecode(text: string, raw: RawB64u): Uint8Array {
  if (typeof text !== 'string') {
    throw new Base64urlError('base64url input must be a string');
  }
  if (!ALPHABET.test(text)) {
    throw new Base64urlError('base64url text contains a character outside [A-Za-z0-9_-]');
  }
  if (text.length % 4 === 1) {
    throw new Base64urlError('base64url text has an impossible length');
  }
  const decoded = raw.decode(text);
  if (raw.encode(decoded) !== text) {
    throw new Base64urlError('base64url text has non-canonical trailing bits');
  }
  return decoded;
}

/**
 * True when `decode` (a strict b64u decoder) accepts `text`, optionally as exactly `byteLength` bytes.
 *
 * @example
 * isStrictB64u('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 32, b64uDecode); // true
 */
export function isStrictB64u(text: unknown, byteLength: number | undefined, decode: (text: string) => Uint8Array): text is string {
  if (typeof text !== 'string') return false;
  // Unpadded length is fixed by the byte length: reject cheaply before decoding.
  if (byteLength !== undefined && text.length !== Math.ceil((byteLength * 4) / 3)) return false;
  try {
    const bytes = decode(text);
    return byteLength === undefined || bytes.length === byteLength;
  } catch {
    return false;
  }
}
