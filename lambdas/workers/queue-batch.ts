/**
 * The shape every SQS worker shares: each record of the batch handled on its own, all at
 * once, and the ones that must come back reported as failures (partial batch response,
 * ReportBatchItemFailures), so one bad message never fails the others.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../logger.js';

/** A record's handler: true when the message is done, false when it must come back later; a throw counts as false. */
type RecordHandler = (record: SQSRecord) => Promise<boolean>;

export async function handleBatch(event: SQSEvent, handle: RecordHandler): Promise<SQSBatchResponse> {
  const results = await Promise.all(
    event.Records.map(async (record) => {
      try {
        return await handle(record);
      } catch (error) {
        logger.error('message failed; it will be retried', { message_id: record.messageId, error: error instanceof Error ? error : String(error) });
        return false;
      }
    }),
  );
  return { batchItemFailures: event.Records.filter((_, index) => !results[index]).map((record) => ({ itemIdentifier: record.messageId })) };
}
