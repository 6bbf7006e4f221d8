/**
 * SHA-256 (FIPS 180-4) in a browser, through @noble/hashes (audited, no dependencies): what
 * hash.ts hands out as `sha256` where package.json `imports` maps `#platform/sha256` here (the
 * `browser` condition; sha256node.ts otherwise). Synchronous like node:crypto's, which
 * WebCrypto's digest() is not.
 */
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';

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
