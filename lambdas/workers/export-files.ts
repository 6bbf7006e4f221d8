/**
 * The exports worker (docs/API.md §4.8): the SQS consumer of the exports queue in AWS, the
 * in-process queue's consumer locally. Each message is one run of an export job
 * (domain/exports/run-export.ts): it writes within its time budget, then saves and re-queues
 * the rest. A run that fails with a retryable error reports its message as failed
 * (ReportBatchItemFailures), so SQS delivers it again after the visibility timeout.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '../config.js';
import { parseJobMessage } from '../domain/exports/job-message.js';
import { runExport } from '../domain/exports/run-export.js';
import { logger } from '../logger.js';
import { queue } from '../runtime/queue.js';
import { signer } from '../runtime/signer.js';
import { defineWorker } from './define-worker.js';

/** Time kept back from the Lambda deadline for the last part and the saves (at most a quarter of the run). */
const STOP_MARGIN_MS = 60_000;
/** The lease outlives the invocation by this much, so it expires only once the run is certainly over. */
const LEASE_MARGIN_MS = 5_000;
/** Operations read and written per page. */
const PAGE_SIZE = 250;

export const handler = defineWorker('ExportFiles', async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const message = parseJobMessage(record.body);
    if (!message) {
      logger.error('export job message is not {export_id, org_id}; dropped', { message_id: record.messageId });
      continue;
    }
    const started = Date.now();
    const remaining = context.getRemainingTimeInMillis();
    const { exportRunSeconds, exportPartBytes } = config();
    const byDeadline = started + remaining - Math.min(STOP_MARGIN_MS, remaining / 4);
    try {
      const outcome = await runExport(
        { signer: signer(), queue: queue() },
        message,
        {
          deadline: exportRunSeconds === undefined ? byDeadline : Math.min(byDeadline, started + exportRunSeconds * 1000),
          leaseUntil: started + remaining + LEASE_MARGIN_MS,
          partBytes: exportPartBytes,
          pageSize: PAGE_SIZE,
        },
      );
      logger.info('export run', { export_id: message.export_id, outcome, ms: Date.now() - started });
    } catch (error) {
      logger.error('export run failed; it will be retried', { export_id: message.export_id, error: error instanceof Error ? error : String(error) });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
});
