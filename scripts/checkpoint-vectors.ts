/**
 * Writes protocol/test/vectors/checkpoint.json (docs/CHECKPOINTS.md "Vectors"): an
 * organization's epoch log of seven entries under a fixed Ed25519 service key, its signed
 * checkpoints at sizes 3 and 7, the consistency proof between them, and the negative cases
 * a verifier must refuse. Everything is deterministic (Ed25519 signatures are), so running
 * it again rewrites the same file: `npx tsx scripts/checkpoint-vectors.ts`.
 */
import { writeFileSync } from 'node:fs';
import {
  GENESIS_PREV_ROOT,
  b64Encode,
  b64uDecode,
  b64uEncode,
  consistencyProof,
  ed25519Jwk,
  inclusionProof,
  logEntryHash,
  logLeafHash,
  logOrigin,
  merkleRoot,
  privateKeyFromSeed,
  rawPublicKey,
  sha256B64u,
  sign,
  signCheckpoint,
  type EpochLogEntry,
} from '@agent-ledger/protocol';

const SEED_HEX = '833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42';
const ORG_ID = '01938c2e-7a10-7000-8000-000000000001';
const EPOCH_MS = 300_000;
const START = 1_767_225_600_000; // 2026-01-01T00:00:00Z

const key = privateKeyFromSeed(Buffer.from(SEED_HEX, 'hex'));
const jwk = ed25519Jwk(rawPublicKey(key));

const entries: EpochLogEntry[] = [];
for (let i = 0; i < 7; i++) {
  const start = START + i * 2 * EPOCH_MS; // every other window: an idle window has no epoch
  entries.push({
    epoch_id: `01938c2e-7a10-7${String(i).padStart(3, '0')}-8000-00000000e90c`,
    org_id: ORG_ID,
    epoch_index: i,
    start_time: start,
    end_time: start + EPOCH_MS,
    root_hash: sha256B64u(new TextEncoder().encode(`epoch ${i}`)),
    leaf_count: i + 1,
    prev_root_hash: i === 0 ? GENESIS_PREV_ROOT : sha256B64u(new TextEncoder().encode(`epoch ${i - 1}`)),
  });
}
const entryHashes = entries.map(logEntryHash);
const leaves = entryHashes.map(logLeafHash);
const origin = logOrigin(ORG_ID);
const signer = async (message: Uint8Array) => sign(key, message);

async function checkpointAt(size: number) {
  const root_hash = b64uEncode(merkleRoot(leaves.slice(0, size)));
  return { size, root_hash, note: await signCheckpoint({ origin, size, root_hash }, jwk.x, signer) };
}

const small = await checkpointAt(3);
const large = await checkpointAt(7);
const proof = consistencyProof(leaves, 3).map(b64uEncode);

// Negative cases: each one changes exactly one thing.
const sigLine = large.note.slice(large.note.lastIndexOf('\n\n') + 2);
const sigBytes = Buffer.from(sigLine.split(' ')[2]!.trim(), 'base64');
sigBytes[10]! ^= 0x01; // inside the signature, after the 4-byte key ID
const wrongSignature = large.note.replace(sigLine, `\u2014 ${origin} ${b64Encode(sigBytes)}\n`);
const wrongSize = large.note.replace(`\n7\n`, `\n8\n`);
const flipped = proof.map((p, i) => {
  if (i !== 1) return p;
  const bytes = b64uDecode(p);
  bytes[0]! ^= 0x80;
  return b64uEncode(bytes);
});

const vectors = {
  description: 'docs/CHECKPOINTS.md: an organization epoch log, C2SP tlog-checkpoint notes and RFC 9162 consistency proofs',
  service_key: { seed_hex: SEED_HEX, jwk },
  origin,
  entries: entries.map((entry, i) => ({
    entry,
    entry_hash: entryHashes[i],
    leaf_hash: b64uEncode(leaves[i]!),
    inclusion_at_7: inclusionProof(leaves, i).map(b64uEncode),
  })),
  checkpoints: [small, large],
  consistency: { first: 3, second: 7, proof },
  negative: [
    { name: 'wrong signature', kind: 'checkpoint', note: wrongSignature },
    { name: 'wrong size', kind: 'checkpoint', note: wrongSize },
    { name: 'flipped consistency-proof bit', kind: 'consistency', first: 3, second: 7, proof: flipped },
  ],
};
writeFileSync(new URL('../protocol/test/vectors/checkpoint.json', import.meta.url), `${JSON.stringify(vectors, null, 2)}\n`);
