/**
 * Merkle trees of epochs: RFC 9162 §2.1 hashing over the chain hashes of an epoch's
 * operations (docs/PROTOCOL.md "Merkle epochs"), inclusion proofs and their verification.
 *
 * Everything is iterative over one array of node hashes, reduced level by level in place:
 * no recursion and no array copies per subtree, so a 100,000-leaf epoch costs ~200,000
 * SHA-256 calls and nothing else. Pairing adjacent nodes and promoting an odd last node
 * unchanged yields exactly RFC 9162's tree (split at the largest power of two < n),
 * because that tree is left-complete.
 */
import { b64uEncode } from '../encoding/base64url.js';
import { ProtocolError } from '../errors/protocolerror.js';
import { HASH_BYTES, decodeHash, leafHash, nodeHash } from './merklehash.js';
import { equalBytes } from '../encoding/bytes.js';

export { leafHash, nodeHash };

/** The proof object of docs/PROTOCOL.md "Merkle epochs", returned by the verify endpoint. */
export type InclusionProof = {
  epoch_id: string;
  leaf_index: number;
  tree_size: number;
  /** b64u node hashes, from the leaf's sibling up to the root's child (RFC 9162 §2.1.3.1) */
  audit_path: string[];
  root_hash: string;
};

/**
 * Replace nodes[0..n) by the next level up, in place, and return its length: adjacent
 * pairs are hashed, an odd last node is promoted unchanged (RFC 9162 §2.1.1 shape).
 */
function reduceLevel(nodes: Uint8Array[], n: number): number {
  const half = n >>> 1;
  for (let i = 0; i < half; i++) {
    nodes[i] = nodeHash(nodes[2 * i] as Uint8Array, nodes[2 * i + 1] as Uint8Array);
  }
  if (n % 2 === 1) nodes[half] = nodes[n - 1] as Uint8Array;
  return n - half;
}

function assertNonEmpty(n: number): void {
  // docs/PROTOCOL.md: a window without operations gets no epoch, so an empty tree is a bug.
  if (n === 0) throw new ProtocolError('EMPTY_TREE', 'a Merkle tree needs at least one leaf');
}

function assertIndex(index: number, n: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index >= n) {
    throw new ProtocolError('INDEX_OUT_OF_RANGE', `leaf index ${String(index)} outside [0, ${n})`);
  }
}

/**
 * `MTH(D[n])` of RFC 9162 §2.1.1 over leaf hashes. Throws ProtocolError `EMPTY_TREE` for
 * zero leaves (an empty epoch never exists; see docs/PROTOCOL.md). The input is not modified.
 *
 * @example
 * merkleRoot(chainHashes.map(leafHash)); // 32-byte root
 */
export function merkleRoot(leaves: Uint8Array[]): Uint8Array {
  assertNonEmpty(leaves.length);
  const nodes = leaves.slice();
  let n = nodes.length;
  while (n > 1) n = reduceLevel(nodes, n);
  return nodes[0] as Uint8Array;
}

/**
 * `root_hash = b64u(MTH(leaves))` straight from an epoch's ordered chain hashes
 * (docs/PROTOCOL.md "Merkle epochs").
 *
 * @example
 * merkleRootB64u(['0tvwBvlt0FBEqPY9jxGPI5JbpMxXUPi2yOKH_VBsgYg']); // 'PxbAws0o...iqLw'
 */
export function merkleRootB64u(chainHashes: string[]): string {
  assertNonEmpty(chainHashes.length);
  const nodes = chainHashes.map(leafHash);
  let n = nodes.length;
  while (n > 1) n = reduceLevel(nodes, n);
  return b64uEncode(nodes[0] as Uint8Array);
}

/**
 * RFC 9162 §2.1.3.1 `PATH(m, D[n])`: the audit path of leaf `index`, ordered from the
 * leaf's sibling upwards. Costs one root computation; for proofs of many leaves of the
 * same tree use {@link MerkleTree}. Throws `EMPTY_TREE` / `INDEX_OUT_OF_RANGE`.
 *
 * @example
 * verifyInclusion(leaves[3], 3, leaves.length, inclusionProof(leaves, 3), merkleRoot(leaves)); // true
 */
export function inclusionProof(leaves: Uint8Array[], index: number): Uint8Array[] {
  return pathAndRoot(leaves, index).path;
}

/** One bottom-up pass that collects leaf `index`'s siblings and ends at the root. */
function pathAndRoot(leaves: Uint8Array[], index: number): { path: Uint8Array[]; root: Uint8Array } {
  assertNonEmpty(leaves.length);
  assertIndex(index, leaves.length);
  const nodes = leaves.slice();
  const path: Uint8Array[] = [];
  let n = nodes.length;
  let idx = index;
  while (n > 1) {
    const sibling = idx % 2 === 0 ? idx + 1 : idx - 1;
    // No sibling means this node is the odd last one, promoted: no path element here.
    if (sibling < n) path.push((nodes[sibling] as Uint8Array).slice());
    n = reduceLevel(nodes, n);
    idx = Math.floor(idx / 2);
  }
  return { path, root: nodes[0] as Uint8Array };
}

/**
 * A Merkle tree with every level kept, so that the proof of any leaf costs O(log n)
 * after one O(n) build (the sealer proving every leaf of an epoch).
 *
 * @example
 * const tree = new MerkleTree(chainHashes.map(leafHash));
 * tree.root(); tree.auditPath(7);
 */
export class MerkleTree {
  private readonly levels: Uint8Array[][];

  constructor(leaves: Uint8Array[]) {
    assertNonEmpty(leaves.length);
    this.levels = [leaves.slice()];
    let level = this.levels[0] as Uint8Array[];
    while (level.length > 1) {
      const next = level.slice();
      next.length = reduceLevel(next, level.length);
      this.levels.push(next);
      level = next;
    }
  }

  /** Number of leaves. */
  get size(): number {
    return (this.levels[0] as Uint8Array[]).length;
  }

  /** `MTH(D[n])` (RFC 9162 §2.1.1). */
  root(): Uint8Array {
    return (this.levels[this.levels.length - 1] as Uint8Array[])[0] as Uint8Array;
  }

  /** RFC 9162 §2.1.3.1 audit path of leaf `index`, leaf's sibling first. */
  auditPath(index: number): Uint8Array[] {
    assertIndex(index, this.size);
    const path: Uint8Array[] = [];
    let idx = index;
    for (let l = 0; l < this.levels.length - 1; l++) {
      const nodes = this.levels[l] as Uint8Array[];
      const sibling = idx % 2 === 0 ? idx + 1 : idx - 1;
      if (sibling < nodes.length) path.push((nodes[sibling] as Uint8Array).slice());
      idx = Math.floor(idx / 2);
    }
    return path;
  }
}

function toProof(epochId: string, index: number, size: number, path: Uint8Array[], root: Uint8Array): InclusionProof {
  return {
    epoch_id: epochId,
    leaf_index: index,
    tree_size: size,
    audit_path: path.map(b64uEncode),
    root_hash: b64uEncode(root),
  };
}

/**
 * The docs/PROTOCOL.md proof object for the operation at `index` of an epoch whose ordered
 * chain hashes are `chainHashes`.
 *
 * @example
 * const proof = inclusionProofFor(epochChainHashes, 3, epoch.epoch_id);
 * verifyInclusionProof(epochChainHashes[3], proof); // true
 */
export function inclusionProofFor(chainHashes: string[], index: number, epochId: string): InclusionProof {
  const leaves = chainHashes.map(leafHash);
  const { path, root } = pathAndRoot(leaves, index);
  return toProof(epochId, index, leaves.length, path, root);
}

/**
 * Proof objects for every operation of an epoch, in leaf order, in O(n log n) total.
 *
 * @example
 * inclusionProofsFor(epochChainHashes, epoch.epoch_id)[i].leaf_index === i; // true
 */
export function inclusionProofsFor(chainHashes: string[], epochId: string): InclusionProof[] {
  const tree = new MerkleTree(chainHashes.map(leafHash));
  const root = tree.root();
  return chainHashes.map((_, i) => toProof(epochId, i, tree.size, tree.auditPath(i), root));
}

function isHash(x: unknown): x is Uint8Array {
  return x instanceof Uint8Array && x.byteLength === HASH_BYTES;
}


/**
 * RFC 9162 §2.1.3.2 inclusion verification, step by step, bounds checks included.
 * `leaf` is the leaf *hash*. Returns false (never throws) for any malformed input.
 *
 * Note: as in RFC 9162, the root commits to the leaves, not to `treeSize`; a proof can
 * also verify under another tree size with the same path shape. Callers must take
 * tree size and root from the same trusted epoch record.
 *
 * @example
 * verifyInclusion(leafHash(ch), proof.leaf_index, proof.tree_size, path, root); // true
 */
export function verifyInclusion(
  leaf: Uint8Array,
  index: number,
  treeSize: number,
  auditPath: Uint8Array[],
  root: Uint8Array,
): boolean {
  try {
    if (!isHash(leaf) || !isHash(root) || !Array.isArray(auditPath)) return false;
    if (!Number.isSafeInteger(index) || !Number.isSafeInteger(treeSize) || index < 0) return false;
    // 1. If leaf_index >= tree_size, fail.
    if (index >= treeSize) return false;
    // 2. fn = leaf_index, sn = tree_size - 1. (Arithmetic, not bit operators: sizes may exceed 2^32.)
    let fn = index;
    let sn = treeSize - 1;
    // 3. r = hash.
    let r = leaf;
    // 4. For each p in inclusion_path:
    for (const p of auditPath) {
      if (!isHash(p)) return false;
      // a. If sn is 0, stop and fail.
      if (sn === 0) return false;
      // b. If LSB(fn) is set, or fn equals sn:
      if (fn % 2 === 1 || fn === sn) {
        // i. r = HASH(0x01 || p || r)
        r = nodeHash(p, r);
        // ii. If LSB(fn) is not set, right-shift fn and sn equally until LSB(fn) is set or fn is 0.
        if (fn % 2 === 0) {
          while (fn % 2 === 0 && fn !== 0) {
            fn = Math.floor(fn / 2);
            sn = Math.floor(sn / 2);
          }
        }
      } else {
        // Otherwise: r = HASH(0x01 || r || p)
        r = nodeHash(r, p);
      }
      // c. Right-shift both fn and sn one time.
      fn = Math.floor(fn / 2);
      sn = Math.floor(sn / 2);
    }
    // 5. Compare sn to 0 and r to root_hash; equal on both counts is success.
    return sn === 0 && equalBytes(r, root);
  } catch {
    return false;
  }
}

/**
 * Check a docs/PROTOCOL.md proof object for the operation whose chain hash is given. When
 * `expected` is passed, the proof must also name that epoch / tree size / root (take them
 * from the epoch record you trust). Returns false, never throws, on garbage input.
 *
 * @example
 * verifyInclusionProof(op.chain_hash, response.proof, { root_hash: epoch.root_hash, tree_size: epoch.leaf_count });
 */
export function verifyInclusionProof(
  chainHashB64u: string,
  proof: InclusionProof,
  expected?: Partial<Pick<InclusionProof, 'epoch_id' | 'tree_size' | 'root_hash'>>,
): boolean {
  try {
    if (proof === null || typeof proof !== 'object') return false;
    const { leaf_index, tree_size, audit_path, root_hash } = proof;
    if (typeof chainHashB64u !== 'string' || typeof root_hash !== 'string' || !Array.isArray(audit_path)) return false;
    if (expected !== undefined) {
      if (expected.epoch_id !== undefined && expected.epoch_id !== proof.epoch_id) return false;
      if (expected.tree_size !== undefined && expected.tree_size !== tree_size) return false;
      if (expected.root_hash !== undefined && expected.root_hash !== root_hash) return false;
    }
    const path: Uint8Array[] = [];
    for (const p of audit_path) {
      if (typeof p !== 'string') return false;
      path.push(decodeHash(p, 'audit_path element'));
    }
    return verifyInclusion(leafHash(chainHashB64u), leaf_index, tree_size, path, decodeHash(root_hash, 'root_hash'));
  } catch {
    return false;
  }
}
