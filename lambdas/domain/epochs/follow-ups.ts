/**
 * What an epoch owes once it is sealed: the `epoch.created` event (SPEC.md §6.1,
 * item 4) and, when a time-stamping authority is configured, its RFC 3161 anchor (item 3).
 * Both run after sealing, so neither a queue outage nor a slow TSA can delay a seal, and
 * both are retried from the follow-up index on later runs until done.
 *
 * Event, exactly once as far as a queue without transactions allows: a sender first claims
 * the event on the epoch item (conditional: not sent, no live claim), then sends, then records
 * it as sent. Two sealers cannot both send; after a failed send the claim runs out and a
 * later run sends the event. Only a crash between a successful send and its record can
 * repeat the message (once the claim has run out): at least once, in practice once.
 */
import { b64uDecode } from '@agent-ledger/protocol';
import {
  claimEvent,
  recordAnchor,
  recordEventSent,
  setFollowUpStage,
  type EpochItem,
  type FollowUpStage,
} from '../../store/epochs.js';
import type { EpochCreatedData, EventMessage } from '../events.js';
import type { Queue, TimestampAuthority } from '../ports.js';

/** How long a claim to send the event lasts: far longer than one SQS send. */
export const EVENT_CLAIM_MS = 60_000;

export function epochCreatedMessage(item: EpochItem): EventMessage {
  return {
    event: 'epoch.created',
    // One epoch per (organization, window): its id names the fact.
    event_id: item.epoch_id,
    org_id: item.org_id,
    timestamp: item.created_at,
    data: {
      epoch_id: item.epoch_id,
      start_time: item.start_time,
      end_time: item.end_time,
      root_hash: item.root_hash,
      leaf_count: item.leaf_count,
    } satisfies EpochCreatedData,
  };
}

/** Sends epoch.created unless it was sent or another sender holds the claim. True when this call sent it. */
export async function sendEpochCreated(item: EpochItem, queue: Queue, now: () => number): Promise<boolean> {
  if (item.event_sent_at !== undefined) return false;
  const claimedAt = now();
  if (!(await claimEvent(item.org_id, item.start_time, claimedAt, claimedAt + EVENT_CLAIM_MS))) return false;
  await queue.send('events', { body: epochCreatedMessage(item) });
  const sentAt = now();
  await recordEventSent(item.org_id, item.start_time, sentAt);
  item.event_sent_at = sentAt;
  return true;
}

/** Time-stamps the epoch's root (PROTOCOL.md: hashedMessage = b64u_decode(root_hash)) and stores the checked token. */
export async function anchorEpoch(item: EpochItem, tsa: TimestampAuthority): Promise<void> {
  const stamp = await tsa.timestamp(b64uDecode(item.root_hash));
  const anchor = { tsa_url: tsa.url, tsa_token: Buffer.from(stamp.token).toString('base64'), anchored_at: stamp.genTime };
  // A concurrent run may have stored its own valid token first; the first one stays.
  await recordAnchor(item.org_id, item.start_time, anchor);
  Object.assign(item, anchor);
}

/** Anchoring is owed only while a TSA is configured: removing LEDGER_TSA_URL stops it. */
export function anchorPending(item: EpochItem, tsa: TimestampAuthority | undefined): boolean {
  return tsa !== undefined && item.anchor_wanted && item.anchored_at === undefined;
}

/** What the epoch still owes: marking and the event first, then the anchor, then nothing. */
export function followUpStage(item: EpochItem, tsa: TimestampAuthority | undefined): FollowUpStage | undefined {
  if (!item.members_marked || item.event_sent_at === undefined) return 'event';
  return anchorPending(item, tsa) ? 'anchor' : undefined;
}

/** Files the epoch under the follow-up stage it is now in (no write when unchanged). */
export async function settleFollowUp(item: EpochItem, tsa: TimestampAuthority | undefined): Promise<void> {
  const stage = followUpStage(item, tsa);
  if (stage === item.follow_up) return;
  await setFollowUpStage(item.org_id, item.start_time, stage);
  item.follow_up = stage;
}
