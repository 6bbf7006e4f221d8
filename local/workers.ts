/**
 * Wires the queue workers of the worker table to the in-process queue, as the SQS event
 * source mapping does in AWS (docs/ARCHITECTURE.md, Local stack): each batch becomes an SQSEvent for the
 * worker's handler, and its partial batch response (`batchItemFailures`,
 * ReportBatchItemFailures) goes back to the queue as the ids to retry.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createHash } from 'node:crypto';
import type { DeliveredMessage, MemoryQueue } from '../lambdas/adapters/local/memory-queue.js';
import type { QueueName } from '../lambdas/domain/ports.js';
import type { WorkerSpec } from '../lambdas/workers/worker-spec.js';
import { inBackground } from './background-priority.js';
import { loadHandler } from './handler-modules.js';
import { lambdaContext } from './lambda-context.js';

const LOCAL_ACCOUNT = '000000000000';

export interface QueueWorkersOptions {
  /**
   * How long a delivered batch stays hidden; default the worker's timeout. (AWS recommends
   * six times the function timeout; locally a quick retry is more useful.)
   */
  visibilityTimeoutMs?: number;
  maxReceiveCount?: number;
}

export function toSqsEvent(queue: QueueName, messages: readonly DeliveredMessage[]): SQSEvent {
  const region = process.env.AWS_REGION ?? 'us-east-1';
  return {
    Records: messages.map((message) => ({
      messageId: message.messageId,
      receiptHandle: `${message.messageId}#${message.receiveCount}`,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: LOCAL_ACCOUNT,
        ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(message.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:${region}:${LOCAL_ACCOUNT}:ledger-${queue}`,
      awsRegion: region,
    })),
  };
}

/** Registers every queue worker as its queue's consumer; returns a function that unregisters them. */
export function startQueueWorkers(
  queue: MemoryQueue,
  workers: readonly WorkerSpec[],
  options: QueueWorkersOptions = {},
): () => void {
  const stops = workers.flatMap((worker) => {
    const trigger = worker.trigger;
    if (trigger.kind !== 'queue') return [];
    const timeoutMs = worker.timeoutSeconds * 1000;
    return [
      queue.consume(
        trigger.queue,
        async (messages) => {
          try {
            const handler = await loadHandler<SQSEvent, SQSBatchResponse | void>('workers', worker.handler);
            const event = toSqsEvent(trigger.queue, messages);
            // Its table and object store calls yield to API requests (background-priority.ts).
            const response = await inBackground(() => handler(event, lambdaContext(worker.id, worker.timeoutSeconds)));
            return { failedMessageIds: (response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier) };
          } catch (error) {
            // The whole batch will be retried; say why, as the Lambda log would.
            process.stderr.write(
              `${JSON.stringify({ level: 'ERROR', source: 'local-worker', worker: worker.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) })}\n`,
            );
            throw error;
          }
        },
        {
          batchSize: trigger.batchSize,
          ...(trigger.maxConcurrency ? { concurrency: trigger.maxConcurrency } : {}),
          ...(trigger.fairBy ? { fairnessKey: memberOf(trigger.fairBy) } : {}),
          handlerTimeoutMs: timeoutMs,
          visibilityTimeoutMs: options.visibilityTimeoutMs ?? timeoutMs,
          ...(options.maxReceiveCount ? { maxReceiveCount: options.maxReceiveCount } : {}),
        },
      ),
    ];
  });
  return () => {
    for (const stop of stops) stop();
  };
}

/** The string value of `member` in a JSON message body, the key the queue takes turns by. */
function memberOf(member: string): (body: string) => string | undefined {
  return (body) => {
    try {
      const value = (JSON.parse(body) as Record<string, unknown>)[member];
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  };
}
