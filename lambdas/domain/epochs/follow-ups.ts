/**
 * What an epoch owes once it is sealed: its RFC 3161 anchor, when a time-stamping authority
 * is configured (docs/PROTOCOL.md, RFC 3161 anchor). It runs after sealing, so a slow TSA cannot
 * delay a seal, and it is retried from the follow-up index on later runs until done. The
 * epoch.created event is not a follow-up: the epoch item's insert is the event (domain/outbox.ts).
 */
import { b64uDecode } from '@agent-ledger/protocol';
import { recordAnchor, setFollowUpStage, type EpochItem, type FollowUpStage } from '../../store/epochs.js';
import type { TimestampAuthority } from '../ports.js';

/** Time-stamps the epoch's root (docs/PROTOCOL.md: hashedMessage = b64u_decode(root_hash)) and stores the checked token. */
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

/** What the epoch still owes: the anchor, or nothing. */
function followUpStage(item: EpochItem, tsa: TimestampAuthority | undefined): FollowUpStage | undefined {
  return anchorPending(item, tsa) ? 'anchor' : undefined;
}

/** Files the epoch under the follow-up stage it is now in (no write when unchanged). */
export async function settleFollowUp(item: EpochItem, tsa: TimestampAuthority | undefined): Promise<void> {
  const stage = followUpStage(item, tsa);
  if (stage === item.follow_up) return;
  await setFollowUpStage(item.org_id, item.start_time, stage);
  item.follow_up = stage;
}
