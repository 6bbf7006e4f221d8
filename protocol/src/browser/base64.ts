/**
 * Browser twin of ../base64.ts (same API, same verdicts, no Buffer): strict padded standard
 * base64 (RFC 4648 §4), used only for the stored RFC 3161 token (docs/API.md §2.11 `tsa_token`).
 */
import { Base64urlError } from '../errors.js';
import { decodeBase64, encodeBase64 } from './base64codec.js';

const PADDED = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Encode bytes as padded standard base64 (RFC 4648 §4).
 *
 * @example
 * b64Encode(new Uint8Array([0xfb, 0xff])); // '+/8='
 */
export function b64Encode(bytes: Uint8Array): string {
  return encodeBase64(bytes, false);
}

/**
 * Decode strict padded standard base64; throws {@link Base64urlError} as ../base64.ts does.
 *
 * @example
 * b64Decode('+/8=');  // Uint8Array [0xfb, 0xff]
 */
export function b64Decode(text: string): Uint8Array {
  if (typeof text !== 'string' || !PADDED.test(text)) {
    throw new Base64urlError('base64 text must be padded RFC 4648 §4 base64 without whitespace');
  }
  const decoded = decodeBase64(text);
  if (encodeBase64(decoded, false) !== text) {
    throw new Base64urlError('base64 text has non-canonical trailing bits');
  }
  return decoded;
}
