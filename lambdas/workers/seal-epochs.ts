/**
 * The epoch sealer (docs/PROTOCOL.md, Merkle epochs): EventBridge runs it every 5 minutes in AWS, the local stack's
 * timer every LEDGER_EPOCH_MS. Each invocation is one run of domain/epochs/run-sealer.ts;
 * a run that overlaps another (EventBridge may deliver twice) is safe, organizations are
 * leased one run at a time.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { config } from '../config.js';
import { runSealer, type SealerReport } from '../domain/epochs/run-sealer.js';
import { logger } from '../logger.js';
import { MetricUnit, recordMetrics } from '../metrics.js';
import { signer } from '../runtime/signer.js';
import { timestampAuthority } from '../runtime/timestamp-authority.js';
import { defineWorker } from './define-worker.js';

/** Time kept back from the Lambda deadline for the follow-up writes after the last organization. */
const STOP_MARGIN_MS = 20_000;
/** Leases outlive the invocation by this much, so they expire only once it is certainly over. */
const LEASE_MARGIN_MS = 60_000;

export const handler = defineWorker('SealEpochs', async (_event: ScheduledEvent, context: Context): Promise<SealerReport> => {
  const started = Date.now();
  const remaining = context.getRemainingTimeInMillis();
  const { epochMs, epochGraceMs, epochSettleMs } = config();
  const report = await runSealer({
    now: started,
    epochMs,
    graceMs: epochGraceMs,
    deadline: started + Math.max(0, remaining - STOP_MARGIN_MS),
    leaseUntil: started + remaining + LEASE_MARGIN_MS,
    holder: context.awsRequestId,
    settleMs: epochSettleMs,
    tsa: timestampAuthority(),
    signer: signer(),
  });
  const { errors, ...counts } = report;
  logger.info('epoch sealer run', { ...counts, failures: errors.length });
  recordMetrics([
    { name: 'EpochsSealed', unit: MetricUnit.Count, value: report.epochs_created },
    { name: 'OperationsSealed', unit: MetricUnit.Count, value: report.operations_sealed },
  ]);
  if (errors.length > 0) {
    for (const error of errors) logger.error('epoch sealer failure', { error });
    // Fail the invocation so the error metric and alarms see it; the next run retries.
    throw new Error(`epoch sealer: ${errors.length} failure(s), first: ${errors[0]}`);
  }
  return report;
});
