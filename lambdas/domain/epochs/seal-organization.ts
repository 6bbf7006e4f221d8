/**
 * Sealing one organization (PROTOCOL.md "Merkle epochs"): every window that
 * ended more than the grace period ago and holds unsealed operations becomes an epoch, and
 * late operations are carried forward (plan.ts). The caller holds the organization's lease.
 *
 * Why no operation is lost or counted twice, with writers committing meanwhile:
 * - Lost: an operation leaves the unsealed index only when the sealer marks it as a member of
 *   a committed epoch. One the index shows late (write or replication after its window was
 *   sealed) is still there on a later run and is carried into a later epoch.
 * - Twice: an operation can be put into an epoch only while its row has no epoch_id.
 *   Members of an epoch a crashed run left half-marked are taken from that epoch's stored
 *   leaf list first. Then a candidate whose home window has no epoch cannot be in any epoch
 *   (an operation only goes into its home window or, when that one exists, a later one, and
 *   epochs are never removed); a candidate whose home window has one is re-read with a
 *   strongly consistent read, since the index may still show a row marked a moment ago.
 *   Finally the epoch item's create is conditional on the window having none.
 */
import { stillUnsealed, unsealedOperations } from '../../store/epoch-members.js';
import { epochItemsBetween, type EpochItem } from '../../store/epochs.js';
import { commitEpoch, finishEpoch } from './commit-epoch.js';
import { planEpochs } from './plan.js';
import { sealableEnd, windowStart } from './window.js';

export interface SealSettings {
  now: number;
  epochMs: number;
  graceMs: number;
  /** A time-stamping authority is configured: new epochs owe an RFC 3161 anchor. */
  anchorWanted: boolean;
}

export interface OrganizationSeal {
  /** Epochs committed or finished by this call, oldest first. */
  epochs: { item: EpochItem; created: boolean }[];
  /** Late operations left for a later run (no sealable window after their own yet). */
  deferred: number;
}

export async function sealOrganization(orgId: string, settings: SealSettings): Promise<OrganizationSeal> {
  const { now, epochMs, graceMs } = settings;
  const end = sealableEnd(now, epochMs, graceMs);
  const candidates = await unsealedOperations(orgId, end);
  if (candidates.length === 0) return { epochs: [], deferred: 0 };

  const existing = await epochItemsBetween(orgId, windowStart(candidates[0]!.created_at, epochMs), end);
  const epochs: OrganizationSeal['epochs'] = [];
  const claimed = new Set<string>();
  for (const item of existing) {
    if (item.members_marked) continue;
    for (const id of await finishEpoch(item)) claimed.add(id);
    epochs.push({ item: { ...item, members_marked: true }, created: false });
  }

  const sealedWindows = new Set(existing.map((item) => item.start_time));
  const homeSealed = (created_at: number) => sealedWindows.has(windowStart(created_at, epochMs));
  let pool = candidates.filter((c) => !claimed.has(c.operation_id));
  const suspects = pool.filter((c) => homeSealed(c.created_at)).map((c) => c.operation_id);
  if (suspects.length > 0) {
    const unsealed = await stillUnsealed(orgId, suspects);
    pool = pool.filter((c) => !homeSealed(c.created_at) || unsealed.has(c.operation_id));
  }

  const plan = planEpochs(pool, sealedWindows, end, epochMs);
  for (const planned of plan.epochs) {
    epochs.push(
      await commitEpoch({
        orgId,
        startTime: planned.start_time,
        epochMs,
        members: planned.members,
        now,
        anchorWanted: settings.anchorWanted,
      }),
    );
  }
  return { epochs, deferred: plan.deferred.length };
}
