/**
 * The Merkle part of verify (PROTOCOL.md, Verify endpoint): once an epoch covers the
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
import { startTimeOfEpochId } from './epoch-id.js';
import { LeafListMismatchError } from './leaf-list.js';
import { WeightedCache } from './weighted-cache.js';

/** About 130 bytes per tree node in V8, two nodes per leaf: some 65 MB at most. */
export const MAX_CACHED_LEAVES = 250_000;

interface EpochTree {
  operationIds: string[];
  tree: MerkleTree;
}

const cache = new WeightedCache<EpochTree>(MAX_CACHED_LEAVES);

async function treeOf(item: EpochItem): Promise<EpochTree> {
  const key = `${item.epoch_id}:${item.root_hash}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const list = await loadLeafList(item);
  const entry = {
    operationIds: list.leaves.map((leaf) => leaf.operation_id),
    tree: new MerkleTree(list.leaves.map((leaf) => leafHash(leaf.chain_hash))),
  };
  cache.set(key, entry, entry.tree.size);
  return entry;
}

/** What a sealed row carries (set by the sealer when it marks members). */
export interface SealedRow {
  org_id: string;
  operation_id: string;
  chain_hash: string;
  epoch_id?: string;
  leaf_index?: number;
}

export interface MerkleEvidence {
  merkle: boolean;
  /** Absent only when the epoch's evidence itself is missing or damaged (then merkle is false). */
  proof?: InclusionProof;
}

/** The epoch a row names, or undefined when there is no such epoch of its organization. */
async function epochOfRow(row: SealedRow & { epoch_id: string }): Promise<EpochItem | undefined> {
  const startTime = startTimeOfEpochId(row.epoch_id);
  const item = startTime === undefined ? undefined : await readEpochItem(row.org_id, startTime);
  return item?.epoch_id === row.epoch_id ? item : undefined;
}

/** undefined while no epoch covers the operation (checks.merkle is then absent). */
export async function merkleEvidence(row: SealedRow): Promise<MerkleEvidence | undefined> {
  if (row.epoch_id === undefined || row.leaf_index === undefined) return undefined;
  const item = await epochOfRow({ ...row, epoch_id: row.epoch_id });
  if (!item) return { merkle: false };
  return proveIn(item, row);
}

/** The proof of `row` in its epoch, checked against the epoch's committed root before it is returned. */
async function proveIn(item: EpochItem, row: SealedRow): Promise<MerkleEvidence> {
  let entry: EpochTree;
  try {
    entry = await treeOf(item);
  } catch (error) {
    if (error instanceof LeafListMismatchError) return { merkle: false };
    throw error;
  }
  const index = row.leaf_index;
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
export interface ProvenMember {
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
export async function proveMembers(rows: readonly SealedRow[]): Promise<Map<string, ProvenMember>> {
  const epochs = new Map<string, Promise<EpochItem | undefined>>();
  const proven = new Map<string, ProvenMember>();
  for (const row of rows) {
    const epochId = row.epoch_id;
    if (epochId === undefined || row.leaf_index === undefined) continue;
    let read = epochs.get(epochId);
    if (!read) epochs.set(epochId, (read = epochOfRow({ ...row, epoch_id: epochId })));
    const item = await read;
    const evidence = item ? await proveIn(item, row) : undefined;
    if (!item || !evidence?.merkle || !evidence.proof) throw new InclusionEvidenceError(row.operation_id, epochId);
    proven.set(row.operation_id, { proof: evidence.proof, epoch: epochOf(item) });
  }
  return proven;
}
