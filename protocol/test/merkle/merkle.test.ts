import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MerkleTree,
  ProtocolError,
  b64uDecode,
  b64uEncode,
  inclusionProof,
  inclusionProofFor,
  inclusionProofsFor,
  leafHash,
  merkleRoot,
  merkleRootB64u,
  nodeHash,
  verifyInclusion,
  verifyInclusionProof,
  type InclusionProof,
} from '../../src/index.js';
import { loadVectors } from '../vectors.js';

type MerkleVector = {
  tree_size: number;
  chain_hashes: string[];
  leaf_hashes: string[];
  root_hash: string;
  proofs: { leaf_index: number; audit_path: string[] }[];
};

const H = (...parts: Uint8Array[]): Uint8Array => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

// RFC 9162 §2.1.1 / §2.1.3.1 transcribed literally (recursive, slicing): the oracle.
function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
function refMth(d: Uint8Array[]): Uint8Array {
  if (d.length === 1) return d[0]!;
  const k = largestPowerOfTwoBelow(d.length);
  return H(new Uint8Array([1]), refMth(d.slice(0, k)), refMth(d.slice(k)));
}
function refPath(m: number, d: Uint8Array[]): Uint8Array[] {
  if (d.length === 1) return [];
  const k = largestPowerOfTwoBelow(d.length);
  return m < k ? [...refPath(m, d.slice(0, k)), refMth(d.slice(k))] : [...refPath(m - k, d.slice(k)), refMth(d.slice(0, k))];
}
/** Side of each path element (true: sibling on the left), leaf upwards: the proof's shape. */
function refShape(m: number, n: number): boolean[] {
  if (n === 1) return [];
  const k = largestPowerOfTwoBelow(n);
  return m < k ? [...refShape(m, k), false] : [...refShape(m - k, n - k), true];
}

/** Deterministic pseudo-random chain hashes for a tree of `n` leaves. */
function chainHashes(seed: number, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(b64uEncode(H(new Uint8Array(new Uint32Array([seed, i]).buffer))));
  return out;
}

function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const out = bytes.slice();
  out[bit >> 3] = (out[bit >> 3] as number) ^ (1 << (bit & 7));
  return out;
}

const enc = (xs: Uint8Array[]): string[] => xs.map(b64uEncode);

describe('merkle.json vectors', () => {
  const vectors = loadVectors<MerkleVector[]>('merkle.json');

  it('has vectors', () => {
    expect(vectors.length).toBeGreaterThan(0);
  });

  for (const v of vectors) {
    describe(`tree_size ${v.tree_size}`, () => {
      const leaves = v.chain_hashes.map(leafHash);

      it('is self-consistent', () => {
        expect(v.chain_hashes).toHaveLength(v.tree_size);
        expect(v.leaf_hashes).toHaveLength(v.tree_size);
        expect(v.proofs).toHaveLength(v.tree_size);
      });
      it('leaf hashes', () => {
        expect(enc(leaves)).toEqual(v.leaf_hashes);
      });
      it('root hash', () => {
        expect(b64uEncode(merkleRoot(leaves))).toBe(v.root_hash);
        expect(merkleRootB64u(v.chain_hashes)).toBe(v.root_hash);
        expect(b64uEncode(new MerkleTree(leaves).root())).toBe(v.root_hash);
        expect(b64uEncode(refMth(leaves))).toBe(v.root_hash);
      });
      for (const p of v.proofs) {
        it(`proof of leaf ${p.leaf_index}`, () => {
          expect(enc(inclusionProof(leaves, p.leaf_index))).toEqual(p.audit_path);
          expect(enc(new MerkleTree(leaves).auditPath(p.leaf_index))).toEqual(p.audit_path);
          const expected: InclusionProof = {
            epoch_id: 'epoch-v',
            leaf_index: p.leaf_index,
            tree_size: v.tree_size,
            audit_path: p.audit_path,
            root_hash: v.root_hash,
          };
          expect(inclusionProofFor(v.chain_hashes, p.leaf_index, 'epoch-v')).toEqual(expected);
          expect(inclusionProofsFor(v.chain_hashes, 'epoch-v')[p.leaf_index]).toEqual(expected);
          expect(
            verifyInclusion(leaves[p.leaf_index]!, p.leaf_index, v.tree_size, p.audit_path.map(b64uDecode), b64uDecode(v.root_hash)),
          ).toBe(true);
          expect(verifyInclusionProof(v.chain_hashes[p.leaf_index]!, expected)).toBe(true);
          expect(
            verifyInclusionProof(v.chain_hashes[p.leaf_index]!, expected, {
              epoch_id: 'epoch-v',
              tree_size: v.tree_size,
              root_hash: v.root_hash,
            }),
          ).toBe(true);
          // The proof belongs to this leaf only.
          if (v.tree_size > 1) {
            const other = v.chain_hashes[(p.leaf_index + 1) % v.tree_size]!;
            expect(verifyInclusionProof(other, expected)).toBe(false);
          }
        });
      }
    });
  }
});

describe('agreement with the literal RFC 9162 recursion', () => {
  it('root and every path for n = 1..40, 63..65, 100', () => {
    for (const n of [...Array(40).keys()].map((i) => i + 1).concat([63, 64, 65, 100])) {
      const leaves = chainHashes(n, n).map(leafHash);
      const root = refMth(leaves);
      expect(merkleRoot(leaves)).toEqual(root);
      const tree = new MerkleTree(leaves);
      expect(tree.root()).toEqual(root);
      expect(tree.size).toBe(n);
      for (let m = 0; m < n; m++) {
        const path = refPath(m, leaves);
        expect(enc(inclusionProof(leaves, m))).toEqual(enc(path));
        expect(enc(tree.auditPath(m))).toEqual(enc(path));
      }
    }
  });
});

describe('properties (RFC 9162 §2.1.3)', () => {
  const tree = fc
    .record({ seed: fc.integer({ min: 0, max: 2 ** 31 }), size: fc.integer({ min: 1, max: 300 }) })
    .map(({ seed, size }) => {
      const chain = chainHashes(seed, size);
      const leaves = chain.map(leafHash);
      return { chain, leaves, root: merkleRoot(leaves) };
    });

  it('every proof of every leaf verifies (sampled above 64 leaves)', () => {
    fc.assert(
      fc.property(tree, fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), ({ leaves, root }, picks) => {
        const n = leaves.length;
        const indices = n <= 64 ? [...Array(n).keys()] : [0, n - 1, ...picks.map((p) => p % n)];
        const t = new MerkleTree(leaves);
        for (const i of indices) {
          const path = t.auditPath(i);
          expect(verifyInclusion(leaves[i]!, i, n, path, root)).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('flipping any bit of the leaf, a path element or the root fails', () => {
    fc.assert(
      fc.property(tree, fc.nat(), fc.nat(), fc.nat(255), ({ leaves, root }, pick, which, bit) => {
        const n = leaves.length;
        const i = pick % n;
        const path = inclusionProof(leaves, i);
        const leaf = leaves[i]!;
        expect(verifyInclusion(flipBit(leaf, bit), i, n, path, root)).toBe(false);
        expect(verifyInclusion(leaf, i, n, path, flipBit(root, bit))).toBe(false);
        if (path.length > 0) {
          const j = which % path.length;
          const bad = path.slice();
          bad[j] = flipBit(bad[j]!, bit);
          expect(verifyInclusion(leaf, i, n, bad, root)).toBe(false);
          // Dropping, duplicating or reordering path elements fails too.
          expect(verifyInclusion(leaf, i, n, path.slice(0, -1), root)).toBe(false);
          expect(verifyInclusion(leaf, i, n, [...path, path[j]!], root)).toBe(false);
          if (path.length > 1) expect(verifyInclusion(leaf, i, n, path.slice().reverse(), root)).toBe(false);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('changing the index fails', () => {
    fc.assert(
      fc.property(tree, fc.nat(), fc.integer({ min: -1000, max: 1000 }), ({ leaves, root }, pick, delta) => {
        const n = leaves.length;
        const i = pick % n;
        const j = i + (delta === 0 ? 1 : delta);
        const path = inclusionProof(leaves, i);
        expect(verifyInclusion(leaves[i]!, i, n, path, root)).toBe(true);
        expect(verifyInclusion(leaves[i]!, j, n, path, root)).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('changing tree_size fails unless the RFC 9162 path shape is identical', () => {
    // RFC 9162 roots commit to the leaves, not to the tree size: e.g. the proof of leaf 0
    // in a 3-leaf tree (two right siblings) also checks out under tree_size 4. So the exact
    // property is: it verifies under tree_size m iff PATH(i, D[m]) has the same shape.
    fc.assert(
      fc.property(tree, fc.nat(), fc.integer({ min: -300, max: 300 }), ({ leaves, root }, pick, delta) => {
        const n = leaves.length;
        const i = pick % n;
        const m = n + (delta === 0 ? 1 : delta);
        const path = inclusionProof(leaves, i);
        const sameShape = m > i && JSON.stringify(refShape(i, m)) === JSON.stringify(refShape(i, n));
        expect(verifyInclusion(leaves[i]!, i, m, path, root)).toBe(sameShape);
      }),
      { numRuns: 200 },
    );
  });

  it('the tree_size ambiguity is real, and verifyInclusionProof pins it with `expected`', () => {
    const chain = chainHashes(7, 3);
    const proof = inclusionProofFor(chain, 0, 'e');
    const grown = { ...proof, tree_size: 4 };
    expect(verifyInclusionProof(chain[0]!, grown)).toBe(true);
    expect(verifyInclusionProof(chain[0]!, grown, { tree_size: 3 })).toBe(false);
    expect(verifyInclusionProof(chain[0]!, proof, { tree_size: 3, root_hash: proof.root_hash, epoch_id: 'e' })).toBe(true);
    expect(verifyInclusionProof(chain[0]!, proof, { epoch_id: 'other' })).toBe(false);
    expect(verifyInclusionProof(chain[0]!, proof, { root_hash: merkleRootB64u(chain.slice(0, 2)) })).toBe(false);
  });
});

describe('inputs and errors', () => {
  const chain = chainHashes(1, 5);
  const leaves = chain.map(leafHash);

  it('leafHash and nodeHash follow the RFC 9162 prefixes', () => {
    const ch = b64uDecode(chain[0]!);
    expect(leafHash(chain[0]!)).toEqual(H(new Uint8Array([0]), ch));
    expect(nodeHash(leaves[0]!, leaves[1]!)).toEqual(H(new Uint8Array([1]), leaves[0]!, leaves[1]!));
    // Shared scratch buffers must not leak between calls.
    const a = nodeHash(leaves[0]!, leaves[1]!);
    nodeHash(leaves[2]!, leaves[3]!);
    expect(a).toEqual(H(new Uint8Array([1]), leaves[0]!, leaves[1]!));
    expect(nodeHash(new Uint8Array([1]), new Uint8Array([2, 3]))).toEqual(H(new Uint8Array([1, 1, 2, 3])));
  });

  it('leafHash rejects anything but 32 bytes of strict b64u', () => {
    for (const bad of ['', 'AAAA', `${chain[0]}=`, chain[0]!.slice(1), `${chain[0]}AAAA`]) {
      expect(() => leafHash(bad)).toThrow(expect.objectContaining({ code: 'INVALID_HASH' }) as Error);
    }
  });

  it('an empty tree is an error (docs/PROTOCOL.md: an empty window gets no epoch)', () => {
    for (const run of [() => merkleRoot([]), () => merkleRootB64u([]), () => new MerkleTree([]), () => inclusionProof([], 0)]) {
      expect(run).toThrow(expect.objectContaining({ code: 'EMPTY_TREE' }) as Error);
    }
    expect(() => inclusionProofFor([], 0, 'e')).toThrow(ProtocolError);
  });

  it('proof index out of range is an error', () => {
    for (const i of [-1, 5, 1.5, NaN]) {
      expect(() => inclusionProof(leaves, i)).toThrow(expect.objectContaining({ code: 'INDEX_OUT_OF_RANGE' }) as Error);
      expect(() => new MerkleTree(leaves).auditPath(i)).toThrow(expect.objectContaining({ code: 'INDEX_OUT_OF_RANGE' }) as Error);
    }
  });

  it('inputs are not modified', () => {
    const copy = leaves.map((l) => l.slice());
    merkleRoot(leaves);
    inclusionProof(leaves, 3);
    new MerkleTree(leaves).auditPath(2);
    expect(leaves).toEqual(copy);
  });

  it('verifyInclusion bounds checks (RFC 9162 §2.1.3.2 steps 1, 4a, 5)', () => {
    const root = merkleRoot(leaves);
    const path = inclusionProof(leaves, 4);
    expect(verifyInclusion(leaves[4]!, 4, 5, path, root)).toBe(true);
    expect(verifyInclusion(leaves[4]!, 5, 5, path, root)).toBe(false); // index >= size
    expect(verifyInclusion(leaves[4]!, 4, 0, path, root)).toBe(false);
    expect(verifyInclusion(leaves[4]!, -1, 5, path, root)).toBe(false);
    expect(verifyInclusion(leaves[4]!, 4.5, 5, path, root)).toBe(false);
    expect(verifyInclusion(leaves[4]!, 4, Infinity, path, root)).toBe(false);
    expect(verifyInclusion(leaves[4]!, 4, 2 ** 60, path, root)).toBe(false);
    expect(verifyInclusion(leaves[4]!, 4, 5, [...path, path[0]!], root)).toBe(false); // sn hits 0 early
    expect(verifyInclusion(leaves[4]!, 4, 5, [], root)).toBe(false); // sn not 0 at the end
    expect(verifyInclusion(leaves[0]!, 0, 1, [], leaves[0]!)).toBe(true); // a single leaf is the root
    expect(verifyInclusion(leaves[4]!.subarray(0, 31), 4, 5, path, root)).toBe(false);
    expect(verifyInclusion(leaves[4]!, 4, 5, path, root.subarray(0, 31))).toBe(false);
    expect(verifyInclusion(leaves[4]!, 4, 5, [new Uint8Array(33)], root)).toBe(false);
    expect(verifyInclusion(leaves[4]!, 4, 5, 'x' as never, root)).toBe(false);
    expect(verifyInclusion(leaves[4]!, 4, 5, [null as never], root)).toBe(false);
  });

  it('verifyInclusion handles tree sizes beyond 2^32 arithmetically', () => {
    // Leaf 2^32 + 1 of a tree of 2^32 + 2 leaves: siblings of a tiny right subtree, then one
    // left sibling (the full 2^32 subtree). Bit operators would truncate these indices.
    const leaf = leaves[0]!;
    const sib = leaves[1]!;
    const big = leaves[2]!;
    const index = 2 ** 32 + 1;
    const size = 2 ** 32 + 2;
    const root = nodeHash(big, nodeHash(sib, leaf));
    expect(verifyInclusion(leaf, index, size, [sib, big], root)).toBe(true);
    expect(verifyInclusion(leaf, 1, 2, [sib, big], root)).toBe(false);
  });

  it('verifyInclusionProof never throws on garbage', () => {
    const good = inclusionProofFor(chain, 2, 'e');
    const garbage: [unknown, unknown][] = [
      [chain[2], null],
      [chain[2], undefined],
      [chain[2], 'proof'],
      [chain[2], {}],
      [chain[2], { ...good, audit_path: 'x' }],
      [chain[2], { ...good, audit_path: [1, 2] }],
      [chain[2], { ...good, audit_path: ['not b64u!'] }],
      [chain[2], { ...good, audit_path: [...good.audit_path.slice(0, -1), 'AAAA'] }],
      [chain[2], { ...good, root_hash: 'AAAA' }],
      [chain[2], { ...good, root_hash: null }],
      [chain[2], { ...good, leaf_index: '2' }],
      [chain[2], { ...good, leaf_index: -1 }],
      [chain[2], { ...good, leaf_index: 2.5 }],
      [chain[2], { ...good, tree_size: 0 }],
      [chain[2], { ...good, tree_size: '5' }],
      [chain[2], { ...good, audit_path: Array(10_000).fill(good.audit_path[0]) }],
      [null, good],
      ['garbage', good],
      [`${chain[2]}=`, good],
      [chain[3], good],
    ];
    for (const [ch, proof] of garbage) {
      expect(() => verifyInclusionProof(ch as string, proof as InclusionProof)).not.toThrow();
      expect(verifyInclusionProof(ch as string, proof as InclusionProof)).toBe(false);
    }
    expect(verifyInclusionProof(chain[2]!, good)).toBe(true);
  });
});

// Large trees: correctness at the sizes the sealer handles. Speed is measured by
// `npm run bench`, never asserted in tests.
describe('large trees', () => {
  const chain = chainHashes(42, 100_000);
  let bigRoot = '';

  it('computes the root of 100,000 leaves', () => {
    bigRoot = merkleRootB64u(chain);
    expect(bigRoot).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b64uEncode(new MerkleTree(chain.map(leafHash)).root())).toBe(bigRoot);
  });

  it('proves a leaf of a 100,000-leaf tree', () => {
    const proof = inclusionProofFor(chain, 77_777, 'big');
    expect(proof.audit_path).toHaveLength(17);
    expect(proof.root_hash).toBe(bigRoot);
    expect(verifyInclusionProof(chain[77_777]!, proof)).toBe(true);
  });

  it('gives all proofs of a 20,000-leaf epoch in one pass', () => {
    const small = chain.slice(0, 20_000);
    const proofs = inclusionProofsFor(small, 'e');
    expect(proofs).toHaveLength(20_000);
    for (const i of [0, 1, 9_999, 16_383, 16_384, 19_999]) {
      expect(verifyInclusionProof(small[i]!, proofs[i]!)).toBe(true);
    }
  });
});
