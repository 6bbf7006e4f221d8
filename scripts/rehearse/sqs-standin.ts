/**
 * The smallest SQS that serves the functions (lambdas/adapters/aws/sqs-queue.ts: SendMessage,
 * SendMessageBatch, GetQueueAttributes) over SQS's JSON protocol, with the message MD5s the
 * SDK checks, plus what the rehearsal's event source mappings need in process: receive a
 * batch (invisible for the queue's VisibilityTimeout), delete, make visible again, and move a
 * message to the dead-letter queue after the RedrivePolicy's maxReceiveCount. SQS has no
 * local engine; this is rehearsal infrastructure, never product code.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { QueueDefinition } from './deployment.js';
import { ServiceError, startJsonService, type JsonService } from './json-service.js';

interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly md5: string;
  readonly sentAt: number;
  receiveCount: number;
  visibleAt: number;
  receiptHandle: string | undefined;
}

export class SqsQueues {
  private readonly messages = new Map<string, StoredMessage[]>();
  /** Called after each send, so the event source mappings poll at once rather than on their timer. */
  onSend: (queueArn: string) => void = () => {};

  constructor(readonly definitions: readonly QueueDefinition[]) {
    for (const queue of definitions) this.messages.set(queue.arn, []);
  }

  byUrl(url: unknown): QueueDefinition {
    const queue = this.definitions.find((candidate) => candidate.url === url);
    if (!queue) throw new ServiceError('AWS.SimpleQueueService.NonExistentQueue', `The specified queue does not exist: ${String(url)}`);
    return queue;
  }

  send(queue: QueueDefinition, body: string, delaySeconds = 0): StoredMessage {
    const message: StoredMessage = {
      messageId: randomUUID(),
      body,
      md5: createHash('md5').update(body, 'utf8').digest('hex'),
      sentAt: Date.now(),
      receiveCount: 0,
      visibleAt: Date.now() + delaySeconds * 1000,
      receiptHandle: undefined,
    };
    this.messages.get(queue.arn)!.push(message);
    this.onSend(queue.arn);
    return message;
  }

  /** Up to `max` visible messages, now invisible for the queue's visibility timeout; over-received ones go to the dead letters first. */
  receive(queueArn: string, max: number): StoredMessage[] {
    const queue = this.definitions.find((candidate) => candidate.arn === queueArn)!;
    const list = this.messages.get(queueArn)!;
    const now = Date.now();
    const batch: StoredMessage[] = [];
    for (const message of [...list]) {
      if (batch.length >= max) break;
      if (message.visibleAt > now) continue;
      if (queue.deadLetter && message.receiveCount >= queue.deadLetter.maxReceiveCount) {
        list.splice(list.indexOf(message), 1);
        const deadLetter = this.definitions.find((candidate) => candidate.arn === queue.deadLetter!.arn)!;
        this.send(deadLetter, message.body);
        continue;
      }
      message.receiveCount += 1;
      message.visibleAt = now + queue.visibilityTimeoutSeconds * 1000;
      message.receiptHandle = randomUUID();
      batch.push(message);
    }
    return batch;
  }

  delete(queueArn: string, message: StoredMessage): void {
    const list = this.messages.get(queueArn)!;
    const at = list.indexOf(message);
    if (at >= 0) list.splice(at, 1);
  }

  /** A failed message visible again after `delayMs` (a short stand-in for the visibility timeout). */
  release(message: StoredMessage, delayMs: number): void {
    message.visibleAt = Date.now() + delayMs;
  }

  /** Messages in a queue, visible or in flight. */
  depth(queueArn: string): number {
    return this.messages.get(queueArn)?.length ?? 0;
  }

  earliestVisible(queueArn: string): number | undefined {
    const list = this.messages.get(queueArn) ?? [];
    return list.length === 0 ? undefined : Math.min(...list.map((message) => message.visibleAt));
  }
}

export function startSqsStandIn(queues: SqsQueues): Promise<JsonService> {
  return startJsonService('SQS', 'application/x-amz-json-1.0', {
    SendMessage: (input) => {
      const message = queues.send(queues.byUrl(input.QueueUrl), String(input.MessageBody), Number(input.DelaySeconds ?? 0));
      return { MessageId: message.messageId, MD5OfMessageBody: message.md5 };
    },
    SendMessageBatch: (input) => {
      const queue = queues.byUrl(input.QueueUrl);
      const entries = (input.Entries ?? []) as { Id: string; MessageBody: string; DelaySeconds?: number }[];
      if (entries.length === 0 || entries.length > 10) throw new ServiceError('AWS.SimpleQueueService.TooManyEntriesInBatchRequest', `1 to 10 entries, got ${entries.length}`);
      return {
        Successful: entries.map((entry) => {
          const message = queues.send(queue, entry.MessageBody, entry.DelaySeconds ?? 0);
          return { Id: entry.Id, MessageId: message.messageId, MD5OfMessageBody: message.md5 };
        }),
        Failed: [],
      };
    },
    GetQueueAttributes: (input) => {
      const queue = queues.byUrl(input.QueueUrl);
      return { Attributes: { QueueArn: queue.arn, ApproximateNumberOfMessages: String(queues.depth(queue.arn)) } };
    },
  });
}
