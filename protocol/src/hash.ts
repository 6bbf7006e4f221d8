/**
 * SHA-256 (docs/PROTOCOL.md `H(x)`, FIPS 180-4), through node:crypto.
 */
import { Buffer } from 'node:buffer';
import { createHash, hash as oneShotHash } from 'node:crypto';
import { b64uEncode } from './base64url.js';
import { plainBytes } from './bytes.js';

// Concatenating small inputs and hashing once with crypto.hash is about twice as fast as
// a createHash object per digest (measured on the Merkle hot path); large inputs are
// streamed instead to avoid copying them.
const CONCAT_LIMIT = 4096;

/**
 * SHA-256 of the concatenation of `parts` (docs/PROTOCOL.md `H(a || b || ...)`).
 *
 * @example
 * sha256(new Uint8Array([0x00]), leafBytes); // 32-byte RFC 9162 leaf hash
 */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) {
    return plainBytes(oneShotHash('sha256', parts[0] as Uint8Array, 'buffer'));
  }
  let total = 0;
  for (const p of parts) total += p.byteLength;
  if (total <= CONCAT_LIMIT) {
    const joined = Buffer.allocUnsafe(total);
    let offset = 0;
    for (const p of parts) {
      joined.set(p, offset);
      offset += p.byteLength;
    }
    return plainBytes(oneShotHash('sha256', joined, 'buffer'));
  }
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return plainBytes(h.digest());
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
