/** The events and exports queues (domain/ports.ts Queue): SQS in AWS, the in-process queue on one machine. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsQueue } from '../adapters/aws/sqs-queue.js';
import { memoryQueue } from '../adapters/local/memory-queue.js';
import { config } from '../config.js';
import type { Queue } from '../domain/ports.js';
import { once } from '../shared/once.js';
import { traced } from '../tracer.js';

export const queue = once((): Queue => {
  const source = config().queue;
  return source.kind === 'sqs'
    ? new SqsQueue(
        traced(new SQSClient({ region: config().region })),
        { events: source.eventsUrl, deliveries: source.deliveriesUrl, exports: source.exportsUrl },
        { deliveries: source.deliveriesDeadLetterUrl },
      )
    : memoryQueue();
});
