/**
 * Browser twin of ../merklehash.ts (same API): the RFC 9162 §2.1.1 leaf and node hashes
 * (docs/PROTOCOL.md "Merkle epochs") on @noble/hashes' SHA-256. A browser checks one proof at a
 * time, so the Node module's shared input buffers buy nothing here.
 */
import { decodeHash, HASH_BYTES } from '../hashvalue.js';
import { sha256 } from './hash.js';

export { decodeHash, HASH_BYTES };

const LEAF_PREFIX = new Uint8Array([0x00]);
const NODE_PREFIX = new Uint8Array([0x01]);

/**
 * `leaf_hash(op) = H(0x00 || b64u_decode(op.chain_hash))`.
 *
 * @example
 * b64uEncode(leafHash('0tvwBvlt0FBEqPY9jxGPI5JbpMxXUPi2yOKH_VBsgYg')); // 'PxbAws0o...iqLw'
 */
export function leafHash(chainHashB64u: string): Uint8Array {
  return sha256(LEAF_PREFIX, decodeHash(chainHashB64u, 'chain_hash'));
}

/**
 * `node_hash(l, r) = H(0x01 || l || r)`.
 *
 * @example
 * const root2 = nodeHash(leafHash(a), leafHash(b)); // root of a 2-leaf tree
 */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(NODE_PREFIX, left, right);
}
