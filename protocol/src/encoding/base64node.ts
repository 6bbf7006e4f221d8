/**
 * The raw RFC 4648 codec under base64.ts and base64url.ts on Node: Buffer's, native, on the
 * service's hot paths (every hash, key and signature on the wire is base64url). package.json
 * `imports` maps `#platform/base64` here under the `default` condition and to
 * base64browser.ts under `browser`. Strictness (alphabet, padding, canonical trailing bits)
 * stays with the callers, so both platforms reach the same verdicts.
 */
import { Buffer } from 'node:buffer';

/** RFC 4648 §4 (`base64`, padded with `=`) or §5 (`base64url`, unpadded). */
export type Alphabet = 'base64' | 'base64url';

/**
 * The text of `bytes` in `alphabet`.
 *
 * @example
 * encodeBase64(new Uint8Array([0xfb, 0xff]), 'base64url'); // '-_8'
 */
export function encodeBase64(bytes: Uint8Array, alphabet: Alphabet): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(alphabet);
}

/**
 * The bytes of text the caller has already checked to be of `alphabet`, trailing bits dropped.
 *
 * @example
 * decodeBase64('-_8', 'base64url'); // Uint8Array [0xfb, 0xff]
 */
export function decodeBase64(text: string, alphabet: Alphabet): Uint8Array {
  // Copy out: Buffer.from(string) may hand back a view into Node's shared pool.
  return new Uint8Array(Buffer.from(text, alphabet));
}
