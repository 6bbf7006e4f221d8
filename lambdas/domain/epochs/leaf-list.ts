/**
 * The leaf list: the evidence an epoch's root was computed over (docs/PROTOCOL.md, Merkle epochs: "operation ids and
 * chain hashes in order", in the anchors bucket under Object Lock). Anyone holding it can
 * recompute the root with `@agent-ledger/protocol` alone and prove any member's inclusion.
 *
 * The object key names the root it hashes to. Two sealers racing on one window, or a re-run
 * after a crash that saw one more late operation, may compute different lists for the same
 * window before either commits; with the root in the key they never overwrite each other,
 * and the committed epoch item points at exactly the list it was computed from. Writing the
 * same key again writes the same bytes (the serialization below is deterministic).
 */
import { merkleRootB64u } from '@agent-ledger/protocol';
import type { Epoch, MemberCandidate } from './epoch.js';

const LEAF_LIST_FORMAT = 'agent-ledger/epoch-leaves/1';

/** The epoch's own fields (docs/API.md §2.11) minus storage bookkeeping, then the leaves. */
export interface LeafList extends Omit<Epoch, 'store_epoch_key' | 'created_at'> {
  format: typeof LEAF_LIST_FORMAT;
  /** In leaf order: (created_at, operation_id) ascending (docs/PROTOCOL.md). */
  leaves: MemberCandidate[];
}

/** Key of an epoch's leaf list in the anchors bucket. */
export function leafListKey(orgId: string, startTime: number, epochId: string, rootHash: string): string {
  return `epochs/${orgId}/${startTime}-${epochId}-${rootHash}.json`;
}

/** The list for `members` (already in leaf order), its root computed here. */
export function buildLeafList(
  header: Pick<Epoch, 'epoch_id' | 'org_id' | 'start_time' | 'end_time'>,
  members: readonly MemberCandidate[],
): LeafList {
  return {
    format: LEAF_LIST_FORMAT,
    epoch_id: header.epoch_id,
    org_id: header.org_id,
    start_time: header.start_time,
    end_time: header.end_time,
    root_hash: merkleRootB64u(members.map((member) => member.chain_hash)),
    leaf_count: members.length,
    // Fixed member order, so equal lists serialize to equal bytes.
    leaves: members.map(({ operation_id, created_at, chain_hash }) => ({ operation_id, created_at, chain_hash })),
  };
}

/** A stored list that does not hash to its epoch's committed root: damaged evidence. */
export class LeafListMismatchError extends Error {
  constructor(epoch: Epoch) {
    super(`leaf list ${epoch.store_epoch_key} does not match epoch ${epoch.epoch_id}`);
    this.name = 'LeafListMismatchError';
  }
}

export function serializeLeafList(list: LeafList): string {
  return JSON.stringify(list);
}

function rootOf(leaves: readonly MemberCandidate[]): string | undefined {
  try {
    return merkleRootB64u(leaves.map((leaf) => leaf.chain_hash));
  } catch {
    return undefined; // a chain hash that is not 32 bytes of base64url
  }
}

/**
 * Parses a stored list and checks it against the epoch that names it: same header, and the
 * root recomputed from its chain hashes equals the committed root_hash. A mismatch means the
 * evidence is damaged, which must never be papered over.
 */
export function parseLeafList(text: string, epoch: Epoch): LeafList {
  let list: LeafList;
  try {
    list = JSON.parse(text) as LeafList;
  } catch {
    throw new LeafListMismatchError(epoch);
  }
  const leaves = Array.isArray(list?.leaves) ? list.leaves : [];
  const sameHeader =
    typeof list === 'object' &&
    list !== null &&
    list.format === LEAF_LIST_FORMAT &&
    list.epoch_id === epoch.epoch_id &&
    list.org_id === epoch.org_id &&
    list.start_time === epoch.start_time &&
    list.leaf_count === epoch.leaf_count &&
    leaves.length === epoch.leaf_count;
  if (!sameHeader || leaves.length === 0 || rootOf(leaves) !== epoch.root_hash) {
    throw new LeafListMismatchError(epoch);
  }
  return list;
}
