/**
 * Creating one epoch, in the order that makes every crash recoverable (PROTOCOL.md, Merkle epochs):
 *
 *   1. put the leaf list in the anchors bucket     (a crash here leaves an orphan object: harmless)
 *   2. put the epoch item, if the window has none  (the commit point; deterministic epoch_id)
 *   3. mark every member row                       (idempotent, conditional on no other epoch)
 *   4. set members_marked                          (sealing done; follow-ups may start)
 *
 * After a crash between 2 and 4 the epoch exists with unmarked members; whoever meets it next
 * (the same organization's next sealing, or the follow-up pass) finishes it from its stored
 * leaf list, never from a fresh query, so it can only ever have the members it committed.
 */
import { getLeafListText, putLeafList } from '../../store/epoch-leaf-lists.js';
import { markMembers } from '../../store/epoch-members.js';
import { createEpochItem, readEpochItem, setMembersMarked, type EpochItem } from '../../store/epochs.js';
import type { MemberCandidate } from './epoch.js';
import { epochIdFor } from './epoch-id.js';
import { buildLeafList, leafListKey, parseLeafList, serializeLeafList, type LeafList } from './leaf-list.js';

export interface EpochToCommit {
  orgId: string;
  startTime: number;
  epochMs: number;
  /** In leaf order. */
  members: readonly MemberCandidate[];
  now: number;
  anchorWanted: boolean;
}

async function markFromList(item: EpochItem, list: LeafList): Promise<void> {
  await markMembers(
    item.org_id,
    item.epoch_id,
    list.leaves.map((leaf, leaf_index) => ({ operation_id: leaf.operation_id, leaf_index })),
  );
  await setMembersMarked(item.org_id, item.start_time);
}

/** The committed leaf list of an epoch, checked against its root. */
export async function loadLeafList(item: EpochItem): Promise<LeafList> {
  return parseLeafList(await getLeafListText(item.store_epoch_key), item);
}

/** Steps 3 and 4 for an epoch a crashed (or concurrent) run committed; returns its member ids. */
export async function finishEpoch(item: EpochItem): Promise<string[]> {
  const list = await loadLeafList(item);
  if (!item.members_marked) await markFromList(item, list);
  return list.leaves.map((leaf) => leaf.operation_id);
}

/**
 * Seals one window. Returns the epoch that now holds the window: ours, or, when another run
 * committed the window first, that one (finished), with `created` false.
 */
export async function commitEpoch(input: EpochToCommit): Promise<{ item: EpochItem; created: boolean }> {
  const { orgId, startTime, epochMs, now } = input;
  const epochId = epochIdFor(orgId, startTime);
  const list = buildLeafList({ epoch_id: epochId, org_id: orgId, start_time: startTime, end_time: startTime + epochMs }, input.members);
  const key = leafListKey(orgId, startTime, epochId, list.root_hash);
  await putLeafList(key, serializeLeafList(list));
  const item: EpochItem = {
    epoch_id: epochId,
    org_id: orgId,
    start_time: startTime,
    end_time: startTime + epochMs,
    root_hash: list.root_hash,
    leaf_count: list.leaf_count,
    store_epoch_key: key,
    created_at: now,
    members_marked: false,
    anchor_wanted: input.anchorWanted,
    follow_up: 'event',
  };
  if (!(await createEpochItem(item))) {
    const winner = await readEpochItem(orgId, startTime);
    if (!winner) throw new Error(`epoch ${orgId}/${startTime} vanished after a failed create`);
    await finishEpoch(winner);
    return { item: { ...winner, members_marked: true }, created: false };
  }
  await markFromList(item, list);
  return { item: { ...item, members_marked: true }, created: true };
}
