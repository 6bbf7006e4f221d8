/**
 * Browser twin of ../base64url.ts (same API, same verdicts, no Buffer): strict unpadded
 * base64url (RFC 4648 §5), docs/PROTOCOL.md "Notation" `b64u(x)`. Decoding accepts exactly one
 * spelling of each byte string, the one the encoder emits.
 */
import { isStrictB64u, strictB64uDecode, type RawB64u } from '../b64ustrict.js';
import { decodeBase64, encodeBase64 } from './base64codec.js';

const RAW: RawB64u = { decode: decodeBase64, encode: (bytes) => encodeBase64(bytes, true) };

/**
 * Encode bytes as base64url without padding (RFC 4648 §5, docs/PROTOCOL.md `b64u`).
 *
 * @example
 * b64uEncode(new Uint8Array([0xfb, 0xff])); // '-_8'
 */
export function b64uEncode(bytes: Uint8Array): string {
  return RAW.encode(bytes);
}

/**
 * Decode strict unpadded base64url; throws {@link Base64urlError} as ../base64url.ts does.
 *
 * @example
 * b64uDecode('-_8');  // Uint8Array [0xfb, 0xff]
 */
export function b64uDecode(text: string): Uint8Array {
  return strictB64uDecode(text, RAW);
}

/**
 * True when `text` is strict base64url, optionally of exactly `byteLength` bytes.
 *
 * @example
 * isB64u('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 32); // true
 */
export function isB64u(text: unknown, byteLength?: number): text is string {
  return isStrictB64u(text, byteLength, b64uDecode);
}
