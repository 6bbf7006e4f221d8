/**
 * Creating one epoch (docs/PROTOCOL.md, Merkle epochs), in the order that makes every crash
 * recoverable:
 *
 *   1. put the leaf list in the anchors bucket     (a crash here leaves an orphan object: harmless)
 *   2. put the epoch item, if the window has none  (the commit point; deterministic epoch_id)
 *
 * Nothing is written to the operation rows: an operation's epoch is the one of its created_at
 * window (the sealing fence keeps every operation in its own window, seal-organization.ts),
 * and its leaf index is its place in that epoch's leaf list (inclusion.ts). The epoch item's
 * insert is also its epoch.created event (domain/outbox.ts).
 */
import { getLeafListText, putLeafList } from '../../store/epoch-leaf-lists.js';
import { createEpochItem, LogHeadMovedError, readEpochItem, type EpochCounts, type EpochItem } from '../../store/epochs.js';
import type { Signer } from '../ports.js';
import { appendToLog } from './epoch-log.js';
import type { MemberCandidate } from './epoch.js';
import { epochIdFor } from './epoch-id.js';
import { buildLeafList, leafListKey, parseLeafList, serializeLeafList, type LeafList } from './leaf-list.js';

interface EpochToCommit {
  orgId: string;
  startTime: number;
  epochMs: number;
  /** In leaf order. */
  members: readonly MemberCandidate[];
  now: number;
  anchorWanted: boolean;
  /** The members counted by agent and type (epoch-counts.ts), when small enough to keep. */
  counts?: EpochCounts | undefined;
  /** Signs the log's checkpoint (docs/CHECKPOINTS.md): the service's receipt signer. */
  signer: Signer;
}

/** Appends retried when another sealer moved the log head in between (each retry re-reads it). */
const LOG_APPEND_ATTEMPTS = 5;

/** The committed leaf list of an epoch, checked against its root. */
export async function loadLeafList(item: EpochItem): Promise<LeafList> {
  return parseLeafList(await getLeafListText(item.store_epoch_key), item);
}

/**
 * Seals one window. Returns the epoch that now holds the window: ours, or, when another run
 * committed the window first, that one, with `created` false.
 */
export async function commitEpoch(input: EpochToCommit): Promise<{ item: EpochItem; created: boolean }> {
  const { orgId, startTime, epochMs, now } = input;
  const epochId = epochIdFor(orgId, startTime);
  const list = buildLeafList({ epoch_id: epochId, org_id: orgId, start_time: startTime, end_time: startTime + epochMs }, input.members);
  const key = leafListKey(orgId, startTime, epochId, list.root_hash);
  await putLeafList(key, serializeLeafList(list));
  const base: EpochItem = {
    epoch_id: epochId,
    org_id: orgId,
    start_time: startTime,
    end_time: startTime + epochMs,
    root_hash: list.root_hash,
    leaf_count: list.leaf_count,
    store_epoch_key: key,
    created_at: now,
    anchor_wanted: input.anchorWanted,
    ...(input.anchorWanted ? { follow_up: 'anchor' as const } : {}),
    ...(input.counts ? { counts: input.counts } : {}),
  };
  const { signer } = input;
  for (let attempt = 1; ; attempt++) {
    // Index, predecessor and checkpoint from the log head as it is now; the create is
    // conditioned on that head, so a sealer that appended meanwhile makes this one re-read.
    const item = await appendToLog(base, signer);
    try {
      if (await createEpochItem(item)) return { item, created: true };
      break;
    } catch (error) {
      if (!(error instanceof LogHeadMovedError) || attempt >= LOG_APPEND_ATTEMPTS) throw error;
    }
  }
  const winner = await readEpochItem(orgId, startTime);
  if (!winner) throw new Error(`epoch ${orgId}/${startTime} vanished after a failed create`);
  return { item: winner, created: false };
}
