/**
 * Strict padded base64 with the standard alphabet (RFC 4648 §4), the encoding docs/API.md §2.11
 * gives the stored RFC 3161 token (`tsa_token`). Everything else on the wire is base64url
 * (base64url.ts); this is only for that one field.
 *
 * As with base64url, exactly one spelling of each byte string is accepted, so a token
 * carried in an export bundle cannot be re-spelled without the bundle digest changing. The
 * raw codec is the platform's (`#platform/base64`), the rules are these on every platform.
 */
import { decodeBase64, encodeBase64 } from '#platform/base64';
import { Base64urlError } from '../errors/protocolerror.js';

const PADDED = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Encode bytes as padded standard base64 (RFC 4648 §4).
 *
 * @example
 * b64Encode(new Uint8Array([0xfb, 0xff])); // '+/8='
 */
export function b64Encode(bytes: Uint8Array): string {
  return encodeBase64(bytes, 'base64');
}

/**
 * Decode strict padded standard base64 (RFC 4648 §4). Throws {@link Base64urlError} (code
 * `BASE64URL`, shared by both alphabets) on whitespace, missing or extra padding, the
 * base64url characters `-` and `_`, and non-zero trailing bits.
 *
 * @example
 * b64Decode('+/8=');  // Uint8Array [0xfb, 0xff]
 * b64Decode('+/9=');  // throws (non-canonical trailing bits)
 */
export function b64Decode(text: string): Uint8Array {
  if (typeof text !== 'string' || !PADDED.test(text)) {
    throw new Base64urlError('base64 text must be padded RFC 4648 §4 base64 without whitespace');
  }
  const decoded = decodeBase64(text, 'base64');
  if (encodeBase64(decoded, 'base64') !== text) {
    throw new Base64urlError('base64 text has non-canonical trailing bits');
  }
  return decoded;
}
