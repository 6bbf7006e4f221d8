/**
 * Which epochs to create, and with which members, for one organization (pure; the rules of
 * PROTOCOL.md "Merkle epochs").
 *
 * Input: the organization's unsealed operations created before `sealableEnd` (every one
 * confirmed to be in no epoch), and the start times of its existing epochs. An operation's
 * *home* is the window its created_at falls in.
 *
 * - An operation whose home has no epoch goes into its home window's epoch.
 * - A *late* operation (its home already has an epoch: its write, or its appearance in the
 *   eventually consistent index, came after that window was sealed) is carried into the next
 *   epoch the organization seals: the earliest window planned here that starts after its
 *   home; if none is, the most recent sealable window when that one has no epoch yet (so a
 *   quiet organization does not hold it back); otherwise it waits for the next run, when one
 *   more window has become sealable.
 *
 * So an epoch covers the operations "not in an earlier epoch, created before its end_time";
 * its members' created_at may precede start_time (late ones), never reach end_time. Each
 * operation is put in exactly one planned epoch or deferred, and an epoch is planned only
 * for a window without one, so no operation can be counted twice.
 */
import { leafOrder, type MemberCandidate } from './epoch.js';
import { windowStart } from './window.js';

export interface PlannedEpoch<C extends MemberCandidate> {
  start_time: number;
  /** In leaf order. */
  members: C[];
}

export interface EpochPlan<C extends MemberCandidate> {
  /** Ascending by start_time. */
  epochs: PlannedEpoch<C>[];
  /** Late operations with no sealable window after their home yet. */
  deferred: C[];
}

export function planEpochs<C extends MemberCandidate>(
  candidates: readonly C[],
  existing: ReadonlySet<number>,
  sealableEnd: number,
  epochMs: number,
): EpochPlan<C> {
  const ordered = candidates.filter((c) => c.created_at < sealableEnd).sort(leafOrder);
  const home = (c: C) => windowStart(c.created_at, epochMs);

  const groups = new Map<number, C[]>();
  for (const c of ordered) if (!existing.has(home(c))) groups.set(home(c), []);
  const starts = () => [...groups.keys()].sort((a, b) => a - b);

  const latest = sealableEnd - epochMs;
  const deferred: C[] = [];
  for (const c of ordered) {
    const h = home(c);
    if (!existing.has(h)) {
      groups.get(h)!.push(c);
      continue;
    }
    let target = starts().find((start) => start > h);
    if (target === undefined && latest > h && !existing.has(latest)) {
      groups.set(latest, []);
      target = latest;
    }
    if (target === undefined) deferred.push(c);
    else groups.get(target)!.push(c);
  }

  const epochs = starts().map((start_time) => ({ start_time, members: groups.get(start_time)!.sort(leafOrder) }));
  return { epochs, deferred };
}
