/**
 * Browser twin of ../base64url.ts (same API, same verdicts, no Buffer): strict unpadded
 * base64url (RFC 4648 §5), PROTOCOL.md "Notation" `b64u(x)`. Decoding accepts exactly one
 * spelling of each byte string, the one the encoder emits.
 */
import { Base64urlError } from '../errors.js';
import { decodeBase64, encodeBase64 } from './base64codec.js';

const ALPHABET = /^[A-Za-z0-9_-]*$/;

/**
 * Encode bytes as base64url without padding (RFC 4648 §5, PROTOCOL.md `b64u`).
 *
 * @example
 * b64uEncode(new Uint8Array([0xfb, 0xff])); // '-_8'
 */
export function b64uEncode(bytes: Uint8Array): string {
  return encodeBase64(bytes, true);
}

/**
 * Decode strict unpadded base64url; throws {@link Base64urlError} as ../base64url.ts does.
 *
 * @example
 * b64uDecode('-_8');  // Uint8Array [0xfb, 0xff]
 */
export function b64uDecode(text: string): Uint8Array {
  if (typeof text !== 'string') {
    throw new Base64urlError('base64url input must be a string');
  }
  if (!ALPHABET.test(text)) {
    throw new Base64urlError('base64url text contains a character outside [A-Za-z0-9_-]');
  }
  if (text.length % 4 === 1) {
    throw new Base64urlError('base64url text has an impossible length');
  }
  const decoded = decodeBase64(text);
  if (encodeBase64(decoded, true) !== text) {
    throw new Base64urlError('base64url text has non-canonical trailing bits');
  }
  return decoded;
}

/**
 * True when `text` is strict base64url, optionally of exactly `byteLength` bytes.
 *
 * @example
 * isB64u('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 32); // true
 */
export function isB64u(text: unknown, byteLength?: number): text is string {
  if (typeof text !== 'string') return false;
  if (byteLength !== undefined && text.length !== Math.ceil((byteLength * 4) / 3)) return false;
  try {
    const bytes = b64uDecode(text);
    return byteLength === undefined || bytes.length === byteLength;
  } catch {
    return false;
  }
}
