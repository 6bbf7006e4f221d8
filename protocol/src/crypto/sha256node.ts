/**
 * SHA-256 (FIPS 180-4) on Node, through node:crypto: what hash.ts hands out as `sha256` where
 * package.json `imports` maps `#platform/sha256` here (the `default` condition; sha256browser.ts
 * under `browser`).
 */
import { Buffer } from 'node:buffer';
import { createHash, hash as oneShotHash } from 'node:crypto';
import { plainBytes } from '../encoding/bytes.js';

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
