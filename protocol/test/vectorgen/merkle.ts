/**
 * merkle.json (trees over synthetic chain hashes with every inclusion proof),
 * merkle-rfc6962.json (the Certificate Transparency reference data, RFC 9162 §2.1) and
 * merkle-invalid.json (proof objects that must not verify).
 */
import { createHash } from 'node:crypto';
import {
  b64uEncode,
  inclusionProof,
  leafHash,
  merkleRoot,
  merkleRootB64u,
  verifyInclusion,
  verifyInclusionProof,
  type InclusionProof,
} from '../../src/index.js';
import { agree, hexBytes, toHex } from './agree.js';
import { CT_INCLUSION, CT_LEAVES, CT_ROOTS } from './rfc.js';

export type MerkleVector = { tree_size: number; chain_hashes: string[]; leaf_hashes: string[]; root_hash: string; proofs: { leaf_index: number; audit_path: string[] }[] };
export type Rfc6962Vectors = {
  leaves_hex: string[];
  roots: { tree_size: number; root_hex: string }[];
  inclusion: { leaf_index: number; tree_size: number; audit_path_hex: string[] }[];
};
export type MerkleInvalidVector = { name: string; chain_hash: string; proof: InclusionProof; error: string; why: string };

const SIZES = [1, 2, 3, 4, 5, 7, 8, 13];

/** chain_hashes[i] = b64u(SHA-256("leaf-" + i)): stand-ins for an epoch's chain hashes. */
function chainHashes(n: number): string[] {
  return Array.from({ length: n }, (_, i) => b64uEncode(createHash('sha256').update(`leaf-${i}`).digest()));
}

export function merkleVectors(): MerkleVector[] {
  return SIZES.map((n) => {
    const chain = chainHashes(n);
    const leaves = chain.map(leafHash);
    const root = merkleRootB64u(chain);
    const proofs = leaves.map((_, i) => ({ leaf_index: i, audit_path: inclusionProof(leaves, i).map(b64uEncode) }));
    for (const p of proofs) {
      const proof: InclusionProof = { epoch_id: 'vectors', leaf_index: p.leaf_index, tree_size: n, audit_path: p.audit_path, root_hash: root };
      agree(`merkle.json size ${n} leaf ${p.leaf_index} verifies`, verifyInclusionProof(chain[p.leaf_index]!, proof), true);
    }
    return { tree_size: n, chain_hashes: chain, leaf_hashes: leaves.map(b64uEncode), root_hash: root, proofs };
  });
}

/** RFC 9162 §2.1.1 leaf hash of arbitrary leaf data (the ledger's leaves are chain hashes). */
function ctLeafHash(dataHex: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(Buffer.from([0])).update(Buffer.from(dataHex, 'hex')).digest());
}

export function rfc6962Vectors(): Rfc6962Vectors {
  const leaves = CT_LEAVES.map(ctLeafHash);
  const roots = CT_ROOTS.map((expected, i) => {
    const root = toHex(merkleRoot(leaves.slice(0, i + 1)));
    agree(`CT root of size ${i + 1}`, root, expected);
    return { tree_size: i + 1, root_hex: root };
  });
  const inclusion: Rfc6962Vectors['inclusion'] = [];
  for (let n = 1; n <= leaves.length; n++) {
    for (let i = 0; i < n; i++) {
      const path = inclusionProof(leaves.slice(0, n), i);
      agree(`CT proof ${i} of ${n} verifies`, verifyInclusion(leaves[i]!, i, n, path, hexBytes(CT_ROOTS[n - 1]!)), true);
      inclusion.push({ leaf_index: i, tree_size: n, audit_path_hex: path.map(toHex) });
    }
  }
  for (const ct of CT_INCLUSION) {
    const ours = inclusion.find((p) => p.leaf_index === ct.leafIndex && p.tree_size === ct.treeSize);
    agree(`CT inclusion proof ${ct.leafIndex} of ${ct.treeSize}`, ours?.audit_path_hex, [...ct.path]);
  }
  return { leaves_hex: [...CT_LEAVES], roots, inclusion };
}

function flipBit(b64u: string, byte: number): string {
  const b = Buffer.from(b64u, 'base64url');
  b[byte] = (b[byte] as number) ^ 0x01;
  return b64uEncode(b);
}

export function merkleInvalidVectors(valid: MerkleVector[]): MerkleInvalidVector[] {
  const tree = valid.find((t) => t.tree_size === 13)!;
  const at = (i: number): InclusionProof => ({ epoch_id: 'vectors', leaf_index: i, tree_size: tree.tree_size, audit_path: [...tree.proofs[i]!.audit_path], root_hash: tree.root_hash });
  const p5 = at(5);
  const path = (edit: (p: string[]) => string[]): InclusionProof => ({ ...p5, audit_path: edit([...p5.audit_path]) });
  const ch = tree.chain_hashes[5]!;
  const out: MerkleInvalidVector[] = [
    { name: 'bit flipped in the first audit path element', chain_hash: ch, proof: path((p) => [flipBit(p[0]!, 0), ...p.slice(1)]), error: 'root_mismatch', why: 'the recomputed root differs' },
    { name: 'bit flipped in the last audit path element', chain_hash: ch, proof: path((p) => [...p.slice(0, -1), flipBit(p.at(-1)!, 31)]), error: 'root_mismatch', why: 'the recomputed root differs' },
    { name: 'bit flipped in the root', chain_hash: ch, proof: { ...p5, root_hash: flipBit(p5.root_hash, 16) }, error: 'root_mismatch', why: 'the recomputed root differs' },
    { name: 'bit flipped in the chain hash', chain_hash: flipBit(ch, 7), proof: p5, error: 'root_mismatch', why: 'the leaf is not in the tree' },
    { name: 'wrong leaf index (4 for leaf 5)', chain_hash: ch, proof: { ...p5, leaf_index: 4 }, error: 'root_mismatch', why: 'the path is combined on the wrong sides' },
    { name: 'wrong leaf index (6 for leaf 5)', chain_hash: ch, proof: { ...p5, leaf_index: 6 }, error: 'root_mismatch', why: 'the path is combined on the wrong sides' },
    { name: 'wrong tree size (8 for 13)', chain_hash: ch, proof: { ...p5, tree_size: 8 }, error: 'root_mismatch', why: 'the path does not match the tree shape' },
    { name: 'wrong tree size (6 for 13)', chain_hash: ch, proof: { ...p5, tree_size: 6 }, error: 'path_length', why: 'a tree of 6 leaves has a shorter path for leaf 5' },
    { name: 'leaf index equal to tree size', chain_hash: tree.chain_hashes[12]!, proof: { ...at(12), leaf_index: 13 }, error: 'index_out_of_range', why: 'leaf_index must be below tree_size' },
    { name: 'negative leaf index', chain_hash: ch, proof: { ...p5, leaf_index: -1 }, error: 'index_out_of_range', why: 'leaf_index must be below tree_size and not negative' },
    { name: 'audit path with an extra element', chain_hash: ch, proof: path((p) => [...p, p[0]!]), error: 'path_length', why: 'the path is longer than the tree is deep' },
    { name: 'audit path missing its last element', chain_hash: ch, proof: path((p) => p.slice(0, -1)), error: 'path_length', why: 'the path stops below the root' },
    { name: 'audit path elements swapped', chain_hash: ch, proof: path((p) => [p[1]!, p[0]!, ...p.slice(2)]), error: 'root_mismatch', why: 'the order of the path is part of the proof' },
    { name: 'leaf that is in no tree (leaf-99)', chain_hash: chainHashes(100)[99]!, proof: p5, error: 'root_mismatch', why: 'the leaf is not in the tree' },
    { name: 'audit path element padded', chain_hash: ch, proof: path((p) => [`${p[0]!}=`, ...p.slice(1)]), error: 'encoding', why: 'hashes are 43 characters of unpadded b64u' },
    { name: 'audit path element of 31 bytes', chain_hash: ch, proof: path((p) => [b64uEncode(Buffer.from(p[0]!, 'base64url').subarray(0, 31)), ...p.slice(1)]), error: 'encoding', why: 'hashes are 32 bytes' },
    { name: 'proof for a one-leaf tree with a path', chain_hash: valid[0]!.chain_hashes[0]!, proof: { epoch_id: 'vectors', leaf_index: 0, tree_size: 1, audit_path: [valid[0]!.root_hash], root_hash: valid[0]!.root_hash }, error: 'path_length', why: 'a one-leaf tree has an empty path' },
  ];
  agree('the unaltered proof verifies', verifyInclusionProof(ch, p5), true);
  for (const v of out) agree(`merkle-invalid "${v.name}" is refused`, verifyInclusionProof(v.chain_hash, v.proof), false);
  return out;
}
