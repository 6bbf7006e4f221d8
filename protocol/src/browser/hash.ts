/**
 * Browser twin of ../hash.ts (same API): SHA-256 (docs/PROTOCOL.md `H(x)`, FIPS 180-4) through
 * @noble/hashes (audited, no dependencies) instead of node:crypto. Synchronous like the Node
 * module, which WebCrypto's digest() is not.
 */
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { b64uEncode } from './base64url.js';

/**
 * SHA-256 of the concatenation of `parts` (docs/PROTOCOL.md `H(a || b || ...)`).
 *
 * @example
 * sha256(new Uint8Array([0x00]), leafBytes); // 32-byte RFC 9162 leaf hash
 */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return nobleSha256(parts[0] as Uint8Array);
  const h = nobleSha256.create();
  for (const p of parts) h.update(p);
  return h.digest();
}

/**
 * `b64u(H(parts...))`: the wire form of a SHA-256 value (43 characters).
 *
 * @example
 * sha256B64u(canonicalBytes(null)); // 'dCNOmK_nSY-12vHzasLXiswzlGT5UHA7jAGYkvmCuQs'
 */
export function sha256B64u(...parts: Uint8Array[]): string {
  return b64uEncode(sha256(...parts));
}
