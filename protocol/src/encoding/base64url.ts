/**
 * Strict unpadded base64url (RFC 4648 §5), docs/PROTOCOL.md "Notation" `b64u(x)`.
 *
 * Every hash, signature and key on the wire is b64u, and several of them are compared
 * as strings (chain heads, kids). A lenient decoder would accept many spellings of the
 * same bytes, so decoding here accepts exactly one spelling: the one the encoder emits.
 * The raw codec is the platform's (`#platform/base64`: base64node.ts, base64browser.ts);
 * the rules are these, on every platform.
 */
import { decodeBase64, encodeBase64 } from '#platform/base64';
import { Base64urlError } from '../errors/protocolerror.js';

const ALPHABET = /^[A-Za-z0-9_-]*$/;

/**
 * Encode bytes as base64url without padding (RFC 4648 §5, docs/PROTOCOL.md `b64u`).
 *
 * @example
 * b64uEncode(new Uint8Array([0xfb, 0xff])); // '-_8'
 */
export function b64uEncode(bytes: Uint8Array): string {
  return encodeBase64(bytes, 'base64url');
}

/**
 * Decode strict unpadded base64url. Throws {@link Base64urlError} on `=`, `+`, `/`,
 * whitespace or any other character outside `[A-Za-z0-9_-]`, on a length ≡ 1 (mod 4),
 * and on non-zero trailing bits (so that the re-encoding equals the input: one byte
 * string, one text).
 *
 * @example
 * b64uDecode('-_8');  // Uint8Array [0xfb, 0xff]
 * b64uDecode('-_9');  // throws Base64urlError (non-canonical trailing bits)
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
  const decoded = decodeBase64(text, 'base64url');
  if (encodeBase64(decoded, 'base64url') !== text) {
    throw new Base64urlError('base64url text has non-canonical trailing bits');
  }
  return decoded;
}

/**
 * True when `text` is a strict base64url string (see {@link b64uDecode}), optionally of
 * exactly `byteLength` decoded bytes. Use it to validate wire fields: a SHA-256 value
 * is `isB64u(x, 32)` (43 chars), an Ed25519 signature `isB64u(x, 64)` (86 chars).
 *
 * @example
 * isB64u('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 32); // true
 * isB64u('AA==');                                           // false
 */
export function isB64u(text: unknown, byteLength?: number): text is string {
  if (typeof text !== 'string') return false;
  // Unpadded length is fixed by the byte length: reject cheaply before decoding.
  if (byteLength !== undefined && text.length !== Math.ceil((byteLength * 4) / 3)) return false;
  try {
    const bytes = b64uDecode(text);
    return byteLength === undefined || bytes.length === byteLength;
  } catch {
    return false;
  }
}
