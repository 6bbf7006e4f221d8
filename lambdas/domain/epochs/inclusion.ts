/**
 * The Merkle part of verify (docs/PROTOCOL.md, Verify endpoint): once an epoch covers the
 * operation, `checks.merkle` and the inclusion `proof` {epoch_id, leaf_index, tree_size,
 * audit_path, root_hash} (RFC 9162 §2.1.3), computed from the epoch's stored leaf list and
 * checked against the epoch's committed root before it is returned.
 *
 * Trees are cached in the function's memory (a warm Lambda proving many operations of a
 * recent epoch reads its list once), bounded by the total number of leaves held.
 */
import { b64uEncode, leafHash, MerkleTree, verifyInclusionProof, type InclusionProof } from '@agent-ledger/protocol';
import { epochOf, readEpochItem, type Epoch, type EpochItem } from '../../store/epochs.js';
import { loadLeafList } from './commit-epoch.js';
import { config } from '../../config.js';
import { startTimeOfEpochId } from './epoch-id.js';
import { windowStart } from './window.js';
import { LeafListMismatchError } from './leaf-list.js';
import { WeightedCache } from './weighted-cache.js';

/** About 130 bytes per tree node in V8, two nodes per leaf: some 65 MB at most. */
const MAX_CACHED_LEAVES = 250_000;

interface EpochTree {
  operationIds: string[];
  /** operation_id → leaf index: where an operation sits in its epoch's list. */
  leafIndex: Map<string, number>;
  tree: MerkleTree;
}

const cache = new WeightedCache<EpochTree>(MAX_CACHED_LEAVES);

async function treeOf(item: EpochItem): Promise<EpochTree> {
  const key = `${item.epoch_id}:${item.root_hash}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const list = await loadLeafList(item);
  const operationIds = list.leaves.map((leaf) => leaf.operation_id);
  const entry = {
    operationIds,
    leafIndex: new Map(operationIds.map((id, index) => [id, index])),
    tree: new MerkleTree(list.leaves.map((leaf) => leafHash(leaf.chain_hash))),
  };
  cache.set(key, entry, entry.tree.size);
  return entry;
}

/**
 * What the Merkle check needs of a row. An operation is in the epoch of its created_at window
 * (domain/epochs/seal-organization.ts), at its place in that epoch's leaf list; rows sealed
 * before sealing became read-only carry the epoch and leaf the sealer marked on them.
 */
export interface SealedRow {
  org_id: string;
  operation_id: string;
  chain_hash: string;
  created_at: number;
  epoch_id?: string;
  leaf_index?: number;
}

/** Where a row's epoch item is looked up: the epoch it names, else its created_at window. */
interface EpochPlace {
  /** A key of the epoch item for callers that read many rows' epochs once each. */
  key: string;
  read: () => Promise<EpochItem | undefined>;
  /** The leaf the row names (marked rows only); else its place in the epoch's list. */
  index: number | undefined;
  /** True when the row names its epoch: then a missing epoch is damage, not "not yet sealed". */
  named: boolean;
}

function placeOf(row: SealedRow, epochMs: number): EpochPlace {
  const epochId = row.epoch_id;
  if (epochId !== undefined && row.leaf_index !== undefined) {
    const startTime = startTimeOfEpochId(epochId);
    return {
      key: epochId,
      read: async () => {
        const item = startTime === undefined ? undefined : await readEpochItem(row.org_id, startTime);
        return item?.epoch_id === epochId ? item : undefined;
      },
      index: row.leaf_index,
      named: true,
    };
  }
  const startTime = windowStart(row.created_at, epochMs);
  return { key: `window:${startTime}`, read: () => readEpochItem(row.org_id, startTime), index: undefined, named: false };
}

interface MerkleEvidence {
  merkle: boolean;
  /** Absent only when the epoch's evidence itself is missing or damaged (then merkle is false). */
  proof?: InclusionProof;
}

/** undefined while no epoch covers the operation (checks.merkle is then absent). */
export async function merkleEvidence(row: SealedRow, epochMs = config().epochMs): Promise<MerkleEvidence | undefined> {
  const place = placeOf(row, epochMs);
  const item = await place.read();
  if (!item) return place.named ? { merkle: false } : undefined;
  return proveIn(item, row, place.index);
}

/** The proof of `row` in its epoch, checked against the epoch's committed root before it is returned. */
async function proveIn(item: EpochItem, row: SealedRow, knownIndex: number | undefined): Promise<MerkleEvidence> {
  let entry: EpochTree;
  try {
    entry = await treeOf(item);
  } catch (error) {
    if (error instanceof LeafListMismatchError) return { merkle: false };
    throw error;
  }
  // An operation missing from its own window's epoch is damaged evidence, never "not yet covered".
  const index = knownIndex ?? entry.leafIndex.get(row.operation_id);
  if (index === undefined || !Number.isSafeInteger(index) || index < 0 || index >= entry.tree.size) return { merkle: false };
  const proof: InclusionProof = {
    epoch_id: item.epoch_id,
    leaf_index: index,
    tree_size: entry.tree.size,
    audit_path: entry.tree.auditPath(index).map(b64uEncode),
    root_hash: b64uEncode(entry.tree.root()),
  };
  // The row's own chain hash, the committed root and size: the list can only confirm them.
  const merkle =
    entry.operationIds[index] === row.operation_id &&
    verifyInclusionProof(row.chain_hash, proof, { epoch_id: item.epoch_id, root_hash: item.root_hash, tree_size: item.leaf_count });
  return { merkle, proof };
}

/** An operation's proof together with the epoch it points to (the export bundle carries both). */
interface ProvenMember {
  proof: InclusionProof;
  epoch: Epoch;
}

/** Evidence an export cannot be written with: an epoch a row names is missing, or its leaf list does not prove the row. */
export class InclusionEvidenceError extends Error {
  constructor(operationId: string, epochId: string) {
    super(`the inclusion evidence of operation ${operationId} in epoch ${epochId} is missing or damaged`);
    this.name = 'InclusionEvidenceError';
  }
}

/**
 * Proofs for many rows at once (an export page): each epoch read once, each tree built once
 * (and cached, as for verify). Rows no epoch covers yet get none; a row whose evidence is
 * missing or does not verify throws InclusionEvidenceError, since leaving its proof out would
 * pass damage off as "not sealed yet".
 */
export async function proveMembers(rows: readonly SealedRow[], epochMs = config().epochMs): Promise<Map<string, ProvenMember>> {
  const epochs = new Map<string, Promise<EpochItem | undefined>>();
  const proven = new Map<string, ProvenMember>();
  for (const row of rows) {
    const place = placeOf(row, epochMs);
    let read = epochs.get(place.key);
    if (!read) epochs.set(place.key, (read = place.read()));
    const item = await read;
    if (!item && !place.named) continue;
    const evidence = item ? await proveIn(item, row, place.index) : undefined;
    if (!item || !evidence?.merkle || !evidence.proof) throw new InclusionEvidenceError(row.operation_id, row.epoch_id ?? item?.epoch_id ?? place.key);
    proven.set(row.operation_id, { proof: evidence.proof, epoch: epochOf(item) });
  }
  return proven;
}
