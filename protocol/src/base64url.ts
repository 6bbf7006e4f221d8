/**
 * Strict unpadded base64url (RFC 4648 §5), docs/PROTOCOL.md "Notation" `b64u(x)`.
 *
 * Every hash, signature and key on the wire is b64u, and several of them are compared
 * as strings (chain heads, kids). A lenient decoder would accept many spellings of the
 * same bytes, so decoding here accepts exactly one spelling: the one the encoder emits.
 */
import { Buffer } from 'node:buffer';
import { isStrictB64u, strictB64uDecode, type RawB64u } from './b64ustrict.js';

const RAW: RawB64u = {
  decode: (text) => Buffer.from(text, 'base64url'),
  encode: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url'),
};

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
  // Copy out: Buffer.from(string) may hand back a view into Node's shared pool.
  return new Uint8Array(strictB64uDecode(text, RAW));
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
  return isStrictB64u(text, byteLength, b64uDecode);
}
