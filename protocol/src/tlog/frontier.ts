/**
 * Appending to an RFC 9162 tree without its leaves: the "compact range" of a tree of size n
 * is the roots of its perfect subtrees, one per set bit of n, largest first. Appending a
 * leaf merges equal-sized subtrees (binary carry); the root folds the list from the right.
 * The sealer keeps this list with the log head, so sealing an epoch costs O(log n) hashes
 * whatever the log's length (docs/CHECKPOINTS.md "Service").
 */
import { b64uDecode, b64uEncode } from '../encoding/base64url.js';
import { ProtocolError } from '../errors/protocolerror.js';
import { nodeHash } from '../merkle/merklehash.js';

/** The log tree's size and compact range, b64u hashes (what the log head stores). */
export type LogFrontier = { size: number; hashes: string[] };

/** The empty tree. */
export const EMPTY_FRONTIER: LogFrontier = { size: 0, hashes: [] };

function popcount(n: number): number {
  let count = 0;
  for (let x = n; x > 0; x = Math.floor(x / 2)) count += x % 2;
  return count;
}

/**
 * The frontier after appending `leaf` (a leaf *hash*).
 *
 * @example
 * let f = EMPTY_FRONTIER; for (const l of leaves) f = appendLeaf(f, l); frontierRoot(f); // = merkleRoot(leaves)
 */
export function appendLeaf(frontier: LogFrontier, leaf: Uint8Array): LogFrontier {
  if (!Number.isSafeInteger(frontier.size) || frontier.size < 0 || frontier.hashes.length !== popcount(frontier.size)) {
    throw new ProtocolError('INVALID_FRONTIER', `a frontier of size ${String(frontier.size)} must hold one hash per set bit`);
  }
  const stack = frontier.hashes.map((h) => b64uDecode(h));
  let carry = leaf;
  // Each trailing 1 bit of size is a subtree of the same size as the one being carried.
  for (let s = frontier.size; s % 2 === 1; s = Math.floor(s / 2)) carry = nodeHash(stack.pop() as Uint8Array, carry);
  stack.push(carry);
  return { size: frontier.size + 1, hashes: stack.map(b64uEncode) };
}

/**
 * `MTH` of the tree the frontier stands for (RFC 9162 §2.1.1). Throws for the empty tree.
 *
 * @example
 * frontierRoot(appendLeaf(EMPTY_FRONTIER, leafHash(x))); // = leafHash(x)
 */
export function frontierRoot(frontier: LogFrontier): Uint8Array {
  if (frontier.hashes.length === 0) throw new ProtocolError('EMPTY_TREE', 'an empty log has no root');
  const nodes = frontier.hashes.map((h) => b64uDecode(h));
  let root = nodes[nodes.length - 1] as Uint8Array;
  for (let i = nodes.length - 2; i >= 0; i--) root = nodeHash(nodes[i] as Uint8Array, root);
  return root;
}
