/**
 * The outbox forwarder (docs/EVENTS.md): the table's stream in, the events queue out. Each
 * new item that carries an event (domain/outbox.ts) becomes one message, sent with
 * SendMessageBatch (10 at a time), in stream order.
 *
 * Failure: the partial batch response names the first record whose message was not sent;
 * the event source retries from there (records before it are done), and after its retries
 * sends the batch's description to the on-failure destination (lib/workers.ts). A record
 * sent and then retried (its batch failed later on) is sent again with the same event_id:
 * at least once on the queue, exactly once per event_id, which is what the webhook worker
 * keys deliveries on.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { EventMessage } from '../domain/events.js';
import { eventOfNewItem } from '../domain/outbox.js';
import { MAX_QUEUE_BATCH, type Queue } from '../domain/ports.js';
import { logger } from '../logger.js';
import { queue } from '../runtime/queue.js';
import { insertedItem } from '../store/stream-images.js';
import { defineWorker } from './define-worker.js';

interface Pending {
  sequenceNumber: string;
  message: EventMessage;
}

function eventOf(record: DynamoDBRecord): EventMessage | null {
  const item = insertedItem(record);
  return item ? eventOfNewItem(item) : null;
}

/** Forwards the events of `records`; returns the sequence number of the first record not forwarded, if any. */
async function forward(target: Queue, records: readonly DynamoDBRecord[]): Promise<string | undefined> {
  const pending: Pending[] = [];
  for (const record of records) {
    const message = eventOf(record);
    if (message) pending.push({ sequenceNumber: record.dynamodb!.SequenceNumber!, message });
  }
  for (let start = 0; start < pending.length; start += MAX_QUEUE_BATCH) {
    const batch = pending.slice(start, start + MAX_QUEUE_BATCH);
    let failed: number[];
    try {
      failed = await target.sendBatch('events', batch.map((entry) => ({ body: entry.message })));
    } catch (error) {
      logger.error('events not forwarded; retried from this record', { error: error as Error, event_id: batch[0]!.message.event_id });
      return batch[0]!.sequenceNumber;
    }
    if (failed.length > 0) {
      const first = batch[Math.min(...failed)]!;
      logger.error('events not forwarded; retried from this record', { event_id: first.message.event_id, failed: failed.length });
      return first.sequenceNumber;
    }
  }
  return undefined;
}

export const handler = defineWorker('ForwardEvents', async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const failedAt = await forward(queue(), event.Records);
  return { batchItemFailures: failedAt === undefined ? [] : [{ itemIdentifier: failedAt }] };
});
