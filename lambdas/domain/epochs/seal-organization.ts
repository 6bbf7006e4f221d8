/**
 * Sealing one organization (docs/PROTOCOL.md, Merkle epochs; docs/STORAGE.md): every window that
 * ended more than the grace period ago and is not sealed yet becomes an epoch when it holds
 * operations. The caller holds the organization's lease.
 *
 * Read-only on the ledger: the sealer writes the fence, the leaf lists, the epoch items and
 * its own progress, never an operation row.
 *
 *   1. fence: raise `sealed_until` on every active agent of the organization to `end` (the
 *      end of the last sealable window). The submission's commit is conditioned on it, so
 *      from here on no operation with an earlier created_at can commit: late operations
 *      cannot exist, and a submission that stalled past the grace period is accepted again
 *      at the current time, in the open window (submit-operation.ts). Agents registered
 *      later start with a fence at their registration (register-agent.ts).
 *   2. settle: wait LEDGER_EPOCH_SETTLE_MS, so the eventually consistent time index shows
 *      every operation committed before the fence.
 *   3. read [sealed_until, end) from the time index (operation-windows.ts: shards and time
 *      slices in parallel) and commit one epoch per window that has operations and no epoch.
 *   4. sum the epoch counts of every UTC hour and day whose windows are now all sealed (span-counts.ts).
 *   5. record sealed_until = end.
 *
 * Every operation is in exactly one epoch: it is in its created_at window (the fence), that
 * window is read once it can no longer change, and the epoch of a window is created once
 * (conditional put; a re-run after a crash rebuilds the same list and root).
 */
import { listAgents, raiseFence } from '../../store/agents.js';
import { epochItemsBetween, type EpochItem } from '../../store/epochs.js';
import { firstOperationBefore, operationsInRange, type WindowOperation } from '../../store/operation-windows.js';
import { recordSealedUntil, sealedUntil } from '../../store/sealer-state.js';
import { forEachBounded } from '../../shared/bounded.js';
import type { Signer } from '../ports.js';
import { commitEpoch } from './commit-epoch.js';
import { recordCompletedSpans } from './span-counts.js';
import { countMembers } from './epoch-counts.js';
import { sealableEnd, windowStart } from './window.js';

export interface SealSettings {
  now: number;
  epochMs: number;
  graceMs: number;
  /** Wait between fencing and reading the window (LEDGER_EPOCH_SETTLE_MS). */
  settleMs: number;
  /** A time-stamping authority is configured: new epochs owe an RFC 3161 anchor. */
  anchorWanted: boolean;
  /** Signs each new epoch's log checkpoint (commit-epoch.ts): the service's receipt signer. */
  signer: Signer;
}

export interface OrganizationSeal {
  /** Epochs committed or found by this call, oldest first. */
  epochs: { item: EpochItem; created: boolean }[];
}

/** Fence writes in flight at once. */
const FENCE_CONCURRENCY = 16;

/** Step 1: no operation with created_at before `end` can commit for any agent of the organization after this. */
export async function fenceOrganization(orgId: string, end: number): Promise<void> {
  const agents = await listAgents(orgId);
  // Frozen and revoked agents cannot commit (the submission's condition wants status active);
  // an unfreeze is an agent write like any other, and the next sealing fences the agent again.
  const open = agents.filter((agent) => agent.status === 'active' && (agent.sealed_until ?? 0) < end);
  await forEachBounded(open, FENCE_CONCURRENCY, (agent) => raiseFence(orgId, agent.agent_id, end));
}

function byWindow(members: readonly WindowOperation[], epochMs: number): Map<number, WindowOperation[]> {
  const windows = new Map<number, WindowOperation[]>();
  for (const member of members) {
    const start = windowStart(member.created_at, epochMs);
    let list = windows.get(start);
    if (!list) windows.set(start, (list = []));
    list.push(member);
  }
  return windows;
}

export async function sealOrganization(orgId: string, settings: SealSettings): Promise<OrganizationSeal> {
  const { now, epochMs, graceMs } = settings;
  const end = sealableEnd(now, epochMs, graceMs);
  const recorded = await sealedUntil(orgId);
  if (recorded !== undefined && recorded >= end) return { epochs: [] };

  await fenceOrganization(orgId, end);
  if (settings.settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settings.settleMs));

  // An organization sealed for the first time starts at the window of its first operation.
  const first = recorded ?? (await firstOperationBefore(orgId, end));
  const epochs: OrganizationSeal['epochs'] = [];
  if (first !== undefined) {
    const from = windowStart(first, epochMs);
    const [members, existing] = await Promise.all([operationsInRange(orgId, from, end), epochItemsBetween(orgId, from, end)]);
    const sealed = new Set(existing.map((item) => item.start_time));
    for (const [startTime, windowMembers] of [...byWindow(members, epochMs)].sort(([a], [b]) => a - b)) {
      // A window with an epoch keeps it (a crashed run committed it, or an earlier version sealed it).
      if (sealed.has(startTime)) continue;
      const counts = countMembers(windowMembers);
      epochs.push(await commitEpoch({ orgId, startTime, epochMs, members: windowMembers, now, anchorWanted: settings.anchorWanted, counts, signer: settings.signer }));
    }
    await recordCompletedSpans(orgId, { after: recorded ?? from, end, epochMs });
  }
  await recordSealedUntil(orgId, end);
  return { epochs };
}
