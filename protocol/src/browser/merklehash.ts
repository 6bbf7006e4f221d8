/**
 * Browser twin of ../merklehash.ts (same API): the RFC 9162 §2.1.1 leaf and node hashes
 * (PROTOCOL.md "Merkle epochs") on @noble/hashes' SHA-256. A browser checks one proof at a
 * time, so the Node module's shared input buffers buy nothing here.
 */
import { ProtocolError } from '../errors.js';
import { b64uDecode } from './base64url.js';
import { sha256 } from './hash.js';

/** A node of the tree is a SHA-256 value. */
export const HASH_BYTES = 32;

const LEAF_PREFIX = new Uint8Array([0x00]);
const NODE_PREFIX = new Uint8Array([0x01]);

/**
 * The 32 bytes of a b64u SHA-256 value; ProtocolError `INVALID_HASH` naming `what` otherwise.
 *
 * @example
 * decodeHash(proof.root_hash, 'root_hash'); // Uint8Array(32)
 */
export function decodeHash(text: string, what: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = b64uDecode(text);
  } catch (err) {
    throw new ProtocolError('INVALID_HASH', `${what} is not base64url`, { cause: err });
  }
  if (bytes.byteLength !== HASH_BYTES) {
    throw new ProtocolError('INVALID_HASH', `${what} must be 32 bytes`);
  }
  return bytes;
}

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
