/**
 * The two hashes of RFC 9162 §2.1.1 that every Merkle computation is made of (docs/PROTOCOL.md
 * "Merkle epochs"), with reused input buffers: sealing a 100,000-leaf epoch calls them ~200,000
 * times. The digest and the raw base64url decoder are the platform's (`#platform/sha256`,
 * `#platform/base64`), so this one module serves the service and the console; merkle.ts builds
 * trees and proofs on it.
 */
import { decodeBase64 } from '#platform/base64';
import { sha256 } from '../crypto/hash.js';
import { decodeHash, HASH_BYTES } from './hashvalue.js';

export { decodeHash, HASH_BYTES };

// Strict b64u of exactly 32 bytes: 43 characters, and the last one carries 2 padding bits
// that must be zero (its alphabet index is a multiple of 4). Same verdict as b64uDecode +
// length check, without its re-encoding.
const CANONICAL_HASH_B64U = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

// Reused input buffers: 0x00 || chain_hash and 0x01 || left || right. Safe to share because
// hashing is synchronous; avoids allocating an input per hash on the hot path.
const leafInput = new Uint8Array(1 + HASH_BYTES);
const nodeInput = new Uint8Array(1 + 2 * HASH_BYTES);
nodeInput[0] = 0x01;

/**
 * `leaf_hash(op) = H(0x00 || b64u_decode(op.chain_hash))` (docs/PROTOCOL.md; RFC 9162 §2.1.1
 * leaf prefix). Throws ProtocolError `INVALID_HASH` unless the chain hash is 32 bytes.
 *
 * @example
 * b64uEncode(leafHash('0tvwBvlt0FBEqPY9jxGPI5JbpMxXUPi2yOKH_VBsgYg')); // 'PxbAws0o...iqLw'
 */
export function leafHash(chainHashB64u: string): Uint8Array {
  const canonical = typeof chainHashB64u === 'string' && CANONICAL_HASH_B64U.test(chainHashB64u);
  // Hot path (every leaf of an epoch): the pattern already proved the text canonical.
  leafInput.set(canonical ? decodeBase64(chainHashB64u, 'base64url') : decodeHash(chainHashB64u, 'chain_hash'), 1); // decodeHash throws the precise reason
  return sha256(leafInput);
}

/**
 * `node_hash(l, r) = H(0x01 || l || r)` (docs/PROTOCOL.md; RFC 9162 §2.1.1 interior prefix).
 *
 * @example
 * const root2 = nodeHash(leafHash(a), leafHash(b)); // root of a 2-leaf tree
 */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  if (left.byteLength === HASH_BYTES && right.byteLength === HASH_BYTES) {
    nodeInput.set(left, 1);
    nodeInput.set(right, 1 + HASH_BYTES);
    return sha256(nodeInput);
  }
  // Not a protocol case (all nodes are SHA-256 values), but keep the RFC definition total.
  return sha256(nodeInput.subarray(0, 1), left, right);
}
