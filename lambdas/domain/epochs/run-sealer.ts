/**
 * One run of the epoch sealer (the scheduled worker; PROTOCOL.md, Merkle epochs): seal every organization with
 * unsealed operations, then do the follow-ups (events, anchors) of the epochs this run made
 * and of older ones a failure or crash left open.
 *
 * Failures stay local: one organization's error does not stop the others (it is reported and
 * the worker fails the invocation at the end, so it shows in the error metrics), a TSA
 * failure is only counted (anchoring is retried on later runs) and time is bounded by the
 * Lambda deadline, past which no new organization or TSA request is started.
 */
import { acquireSealLease, releaseSealLease } from '../../store/epoch-lease.js';
import { hasUnsealedBefore, organizationsWithUnsealed } from '../../store/epoch-members.js';
import type { EpochItem } from '../../store/epochs.js';
import { forEachBounded } from '../../shared/bounded.js';
import { describe, followUps } from './run-follow-ups.js';
import { sealOrganization } from './seal-organization.js';
import type { SealerReport, SealerRunOptions } from './sealer-run.js';
import { sealableEnd } from './window.js';

export type { SealerReport, SealerRunOptions };

/** Organizations sealed at once; each one's marking already runs many writes in parallel. */
const ORG_CONCURRENCY = 4;

async function sealAll(options: SealerRunOptions, clock: () => number, report: SealerReport): Promise<EpochItem[]> {
  const touched: EpochItem[] = [];
  const orgs = await organizationsWithUnsealed();
  report.organizations = orgs.length;
  const settings = { now: options.now, epochMs: options.epochMs, graceMs: options.graceMs, anchorWanted: options.tsa !== undefined };
  const end = sealableEnd(options.now, options.epochMs, options.graceMs);
  await forEachBounded(orgs, ORG_CONCURRENCY, async (orgId) => {
    // Most organizations only have operations of the open window: no lease, no more reads.
    if (!(await hasUnsealedBefore(orgId, end))) return;
    if (clock() > options.deadline || !(await acquireSealLease(orgId, options.holder, clock(), options.leaseUntil))) {
      report.organizations_skipped++;
      return;
    }
    try {
      const sealed = await sealOrganization(orgId, settings);
      report.operations_deferred += sealed.deferred;
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
    operations_deferred: 0,
    events_sent: 0,
    anchored: 0,
    anchor_failures: 0,
    errors: [],
  };
  const fresh = await sealAll(options, clock, report);
  await followUps(fresh, options, clock, report);
  return report;
}
