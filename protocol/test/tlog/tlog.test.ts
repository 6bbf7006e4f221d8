/**
 * The organization's epoch log (docs/CHECKPOINTS.md): entry hashes, the frontier the sealer
 * appends with, RFC 9162 consistency proofs and C2SP tlog-checkpoint notes, against the
 * vectors in vectors/checkpoint.json and against brute force.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_FRONTIER,
  appendLeaf,
  b64uDecode,
  b64uEncode,
  consistencyProof,
  frontierRoot,
  leafHash,
  logEntryHash,
  logLeafHash,
  merkleRoot,
  noteKeyId,
  parseCheckpoint,
  privateKeyFromSeed,
  sha256,
  sign,
  signCheckpoint,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
  type EpochLogEntry,
  type Jwk,
} from '../../src/index.js';
import { loadVectors } from '../vectors.js';

type Vectors = {
  service_key: { seed_hex: string; jwk: Jwk & { x: string; kid: string } };
  origin: string;
  entries: { entry: EpochLogEntry; entry_hash: string; leaf_hash: string; inclusion_at_7: string[] }[];
  checkpoints: { size: number; root_hash: string; note: string }[];
  consistency: { first: number; second: number; proof: string[] };
  negative: ({ name: string; kind: 'checkpoint'; note: string } | { name: string; kind: 'consistency'; first: number; second: number; proof: string[] })[];
};

const v = loadVectors<Vectors>('checkpoint.json');
const jwks = { keys: [v.service_key.jwk] };
const leavesOf = (count: number) => Array.from({ length: count }, (_, i) => sha256(new TextEncoder().encode(`leaf ${i}`)));

describe('vectors/checkpoint.json', () => {
  it('entry hashes, leaf hashes and inclusion in the size-7 tree', () => {
    const leaves = v.entries.map((e) => logLeafHash(logEntryHash(e.entry)));
    const root = b64uDecode(v.checkpoints[1]!.root_hash);
    v.entries.forEach((e, i) => {
      expect(logEntryHash(e.entry)).toBe(e.entry_hash);
      expect(b64uEncode(leaves[i]!)).toBe(e.leaf_hash);
      expect(verifyInclusion(leaves[i]!, i, 7, e.inclusion_at_7.map(b64uDecode), root)).toBe(true);
    });
    expect(b64uEncode(merkleRoot(leaves))).toBe(v.checkpoints[1]!.root_hash);
  });

  it('the checkpoints are reproduced byte for byte and verify; the key ID is the C2SP one', async () => {
    const key = privateKeyFromSeed(Buffer.from(v.service_key.seed_hex, 'hex'));
    for (const cp of v.checkpoints) {
      const note = await signCheckpoint({ origin: v.origin, size: cp.size, root_hash: cp.root_hash }, v.service_key.jwk.x, async (m) => sign(key, m));
      expect(note).toBe(cp.note);
      const verdict = verifyCheckpoint(cp.note, jwks, v.origin);
      expect(verdict).toEqual({ ok: true, checkpoint: { origin: v.origin, size: cp.size, root_hash: cp.root_hash }, kid: v.service_key.jwk.kid });
    }
    // key ID = SHA-256(name || 0x0A || 0x01 || raw key)[:4], computed here without the module.
    const expected = createHash('sha256').update(v.origin).update(Buffer.from([0x0a, 0x01])).update(b64uDecode(v.service_key.jwk.x)).digest().subarray(0, 4);
    expect(Buffer.from(noteKeyId(v.origin, b64uDecode(v.service_key.jwk.x))).equals(expected)).toBe(true);
    expect(Buffer.from(parseCheckpoint(v.checkpoints[0]!.note).signatures[0]!.key_id).equals(expected)).toBe(true);
  });

  it('the consistency proof between the two checkpoints verifies', () => {
    const [a, b] = v.checkpoints as [Vectors['checkpoints'][0], Vectors['checkpoints'][0]];
    const { first, second, proof } = v.consistency;
    const leaves = v.entries.map((e) => b64uDecode(e.leaf_hash));
    expect(consistencyProof(leaves, first).map(b64uEncode)).toEqual(proof);
    expect(verifyConsistency(first, second, proof.map(b64uDecode), b64uDecode(a.root_hash), b64uDecode(b.root_hash))).toBe(true);
  });

  it.each(v.negative.map((n) => [n.name, n] as const))('refuses: %s', (_name, n) => {
    if (n.kind === 'checkpoint') {
      expect(verifyCheckpoint(n.note, jwks, v.origin).ok).toBe(false);
    } else {
      const [a, b] = v.checkpoints as [Vectors['checkpoints'][0], Vectors['checkpoints'][0]];
      expect(verifyConsistency(n.first, n.second, n.proof.map(b64uDecode), b64uDecode(a.root_hash), b64uDecode(b.root_hash))).toBe(false);
    }
  });
});

describe('checkpoint notes', () => {
  it('refuses another origin, an unknown key, a second signature that fails, and malformed notes', () => {
    const note = v.checkpoints[0]!.note;
    expect(verifyCheckpoint(note, jwks, 'agent-ledger/another-org')).toEqual({ ok: false, reason: expect.stringContaining('origin') });
    const other = { keys: [{ ...v.service_key.jwk, x: b64uEncode(new Uint8Array(32).fill(7)) }] };
    expect(verifyCheckpoint(note, other).ok).toBe(false);
    // A signature line by an unknown key name is ignored; the genuine one still verifies.
    expect(verifyCheckpoint(`${note}\u2014 example.com/witness AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==\n`, jwks).ok).toBe(true);
    for (const bad of ['', note.replace('\n\n', '\n'), note.replace(/\n3\n/, '\n03\n'), note.replace(/\n3\n/, '\n-3\n'), note.trimEnd(), `x\t${note}`]) {
      expect(verifyCheckpoint(bad, jwks).ok).toBe(false);
    }
  });
});

describe('consistency proofs (RFC 9162 §2.1.4)', () => {
  it('verify for every 1 <= m <= n <= 20 and fail when any node, size or root is wrong', () => {
    const all = leavesOf(20);
    for (let n = 1; n <= 20; n++) {
      const leaves = all.slice(0, n);
      const rootN = merkleRoot(leaves);
      for (let m = 1; m <= n; m++) {
        const rootM = merkleRoot(leaves.slice(0, m));
        const proof = consistencyProof(leaves, m);
        expect(verifyConsistency(m, n, proof, rootM, rootN)).toBe(true);
        if (m === n) continue;
        expect(verifyConsistency(m, n, proof, rootN, rootN)).toBe(false);
        expect(verifyConsistency(m, n, proof, rootM, rootM)).toBe(false);
        proof.forEach((_, i) => {
          const tampered = proof.map((p, j) => (j === i ? Uint8Array.from(p, (b, k) => (k === 0 ? b ^ 1 : b)) : p));
          expect(verifyConsistency(m, n, tampered, rootM, rootN)).toBe(false);
        });
        expect(verifyConsistency(m, n, proof.slice(0, -1), rootM, rootN)).toBe(false);
      }
    }
  });

  it('a rewritten prefix has no proof: the older root is not reproduced', () => {
    const leaves = leavesOf(9);
    const rewritten = leaves.slice();
    rewritten[2] = leafHash(b64uEncode(new Uint8Array(32)));
    const proof = consistencyProof(rewritten, 5);
    expect(verifyConsistency(5, 9, proof, merkleRoot(leaves.slice(0, 5)), merkleRoot(rewritten))).toBe(false);
  });

  it('refuses sizes outside 1 <= m <= n', () => {
    const leaves = leavesOf(4);
    expect(() => consistencyProof(leaves, 0)).toThrow();
    expect(() => consistencyProof(leaves, 5)).toThrow();
    expect(verifyConsistency(0, 4, [], merkleRoot(leaves), merkleRoot(leaves))).toBe(false);
  });
});

describe('the frontier the sealer appends with', () => {
  it('has the RFC 9162 root of every prefix', () => {
    const leaves = leavesOf(70);
    let frontier = EMPTY_FRONTIER;
    leaves.forEach((leaf, i) => {
      frontier = appendLeaf(frontier, leaf);
      expect(frontier.size).toBe(i + 1);
      expect(Buffer.from(frontierRoot(frontier)).equals(Buffer.from(merkleRoot(leaves.slice(0, i + 1))))).toBe(true);
    });
    expect(() => frontierRoot(EMPTY_FRONTIER)).toThrow();
    expect(() => appendLeaf({ size: 3, hashes: [] }, leaves[0]!)).toThrow();
  });
});
