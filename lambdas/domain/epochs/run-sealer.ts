/**
 * One run of the epoch sealer (the scheduled worker; docs/PROTOCOL.md, Merkle epochs): seal every
 * organization with recent activity (seal-organization.ts), then anchor the epochs this run
 * made and older ones a TSA failure left unanchored. The epoch.created events leave through
 * the table's stream (domain/outbox.ts), not from here.
 *
 * Failures stay local: one organization's error does not stop the others (it is reported and
 * the worker fails the invocation at the end, so it shows in the error metrics), a TSA
 * failure is only counted (anchoring is retried on later runs) and time is bounded by the
 * Lambda deadline, past which no new organization or TSA request is started.
 */
import { activeOrganizations } from '../../store/agents.js';
import { acquireSealLease, releaseSealLease } from '../../store/epoch-lease.js';
import type { EpochItem } from '../../store/epochs.js';
import { sealedUntil } from '../../store/sealer-state.js';
import { forEachBounded } from '../../shared/bounded.js';
import { describe, followUps } from './run-follow-ups.js';
import { sealOrganization } from './seal-organization.js';
import type { SealerReport, SealerRunOptions } from './sealer-run.js';
import { sealableEnd } from './window.js';

export type { SealerReport, SealerRunOptions };

/** Organizations sealed at once; each one's window read already runs many queries in parallel. */
export const ORG_CONCURRENCY = 4;

/**
 * How far back an agent's last activity makes its organization a candidate: an organization
 * is sealed up to the present whenever one of its agents was active this recently, so a
 * window stays open only while the organization is idle for longer (and then it holds
 * nothing, or its sealing resumes with the next activity: sealed_until never skips a window).
 */
export const ACTIVITY_LOOKBACK_MS = 24 * 60 * 60_000;

async function sealAll(options: SealerRunOptions, clock: () => number, report: SealerReport): Promise<EpochItem[]> {
  const touched: EpochItem[] = [];
  const end = sealableEnd(options.now, options.epochMs, options.graceMs);
  const orgs = await activeOrganizations(end - ACTIVITY_LOOKBACK_MS);
  report.organizations = orgs.length;
  const settings = {
    now: options.now,
    epochMs: options.epochMs,
    graceMs: options.graceMs,
    settleMs: options.settleMs,
    anchorWanted: options.tsa !== undefined,
    signer: options.signer,
  };
  await forEachBounded(orgs, ORG_CONCURRENCY, async (orgId) => {
    // Most candidates are sealed up to `end` already: one read, no lease.
    if (((await sealedUntil(orgId)) ?? -Infinity) >= end) return;
    if (clock() > options.deadline || !(await acquireSealLease(orgId, options.holder, clock(), options.leaseUntil))) {
      report.organizations_skipped++;
      return;
    }
    try {
      const sealed = await sealOrganization(orgId, settings);
      for (const { item, created } of sealed.epochs) {
        touched.push(item);
        if (created) {
          report.epochs_created++;
          report.operations_sealed += item.leaf_count;
        }
      }
    } catch (error) {
      report.errors.push(`organization ${orgId}: ${describe(error)}`);
    } finally {
      await releaseSealLease(orgId, options.holder).catch(() => {});
    }
  });
  return touched;
}

export async function runSealer(options: SealerRunOptions): Promise<SealerReport> {
  const clock = options.clock ?? Date.now;
  const report: SealerReport = {
    organizations: 0,
    organizations_skipped: 0,
    epochs_created: 0,
    operations_sealed: 0,
    anchored: 0,
    anchor_failures: 0,
    errors: [],
  };
  const fresh = await sealAll(options, clock, report);
  await followUps(fresh, options, clock, report);
  return report;
}
