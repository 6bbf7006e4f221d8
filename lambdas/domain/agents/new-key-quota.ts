/**
 * The daily quota of new agent keys per member (docs/API.md §8 "new agent keys per member"):
 * every registration and key addition appends to the organization's one key history, and
 * every export carries that history (docs/EXPORT.md "Key history"), so one member's script
 * must not be able to grow it without bound. Only keys that start a window count: retiring,
 * revoking and deleting are never refused, since an incident response must always be able to
 * end keys.
 *
 * The slots are taken in one conditional write before the change commits (rate-counters.ts
 * reserve), so concurrent registrations cannot pass the quota together; a change that then
 * fails gives its slots back.
 */
import { KEY_START_KINDS, type KeyEventDraft } from '@agent-ledger/protocol';
import { config } from '../../config.js';
import { counterKeys, release, reserve } from '../../store/rate-counters.js';
import { DAY_MS, rateLimited, secondsUntil, windowAt } from '../rate-limit/fixed-window.js';

/**
 * Takes the quota for the new keys among `drafts` (all by one actor); answers how to give it
 * back, or throws RATE_LIMITED with Retry-After at the next UTC day.
 */
export async function takeNewKeyQuota(orgId: string, drafts: readonly KeyEventDraft[], now: number): Promise<() => Promise<void>> {
  const starts = drafts.filter((draft) => KEY_START_KINDS.includes(draft.event));
  const actor = starts[0]?.actor;
  if (actor === undefined) return async () => {};
  const limit = config().newKeysPerMemberPerDay;
  const window = windowAt(now, DAY_MS);
  const key = counterKeys.newKeys(orgId, actor, window.start);
  if (!(await reserve(key, 'keys', limit, window.expiresAtS, starts.length))) {
    throw rateLimited(`this member registered its ${limit} new agent keys for today (LEDGER_NEW_KEYS_PER_MEMBER_PER_DAY, docs/API.md §8)`, secondsUntil(window.end, now));
  }
  return () => release(key, 'keys', starts.length);
}
