/**
 * The SQS queues that feed the workers (docs/ARCHITECTURE.md, Shape): `events` (the facts webhooks
 * announce), `deliveries` (one message per webhook delivery attempt) and `exports` (export
 * jobs). Each has a dead-letter queue, so a message that keeps failing stops being retried
 * after a few attempts and waits there for an operator instead of being lost.
 */
import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueName } from '../lambdas/domain/ports.js';
import type { WorkerSpec } from '../lambdas/workers/worker-spec.js';
import type { LedgerAlarms } from './alarms.js';
import { pascal } from './names.js';

/** Deliveries after which a message moves to the dead-letter queue. */
export const MAX_RECEIVE_COUNT = 5;

const QUEUE_NAMES = ['events', 'deliveries', 'exports'] as const satisfies readonly QueueName[];

/**
 * Queues whose messages are sent with a delay (up to MAX_DELAY_SECONDS): webhook retries wait
 * out their backoff as delayed messages (lambdas/domain/webhooks/delivery-message.ts). Their
 * backlog alarm allows for it (workers.ts).
 */
export const DELAYED_QUEUES: readonly QueueName[] = ['deliveries'];

export interface LedgerQueuesProps {
  /** The workers; a queue's visibility timeout follows the slowest worker consuming it. */
  readonly workers: readonly WorkerSpec[];
  /** Each dead-letter queue is alarmed on its depth. */
  readonly alarms: LedgerAlarms;
}

export class LedgerQueues extends Construct {
  readonly queues: Readonly<Record<QueueName, Queue>>;
  readonly deadLetterQueues: Readonly<Record<QueueName, Queue>>;

  constructor(scope: Construct, id: string, props: LedgerQueuesProps) {
    super(scope, id);
    const queues = {} as Record<QueueName, Queue>;
    const deadLetterQueues = {} as Record<QueueName, Queue>;
    for (const name of QUEUE_NAMES) {
      const deadLetterQueue = new Queue(this, `${pascal(name)}DeadLetters`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        // The longest SQS allows: time for an operator to notice and redrive.
        retentionPeriod: Duration.days(14),
      });
      queues[name] = new Queue(this, pascal(name), {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: visibilityTimeout(props.workers, name),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
      });
      deadLetterQueues[name] = deadLetterQueue;
      props.alarms.watchDeadLetters(this, name, deadLetterQueue, `A message of the ${name} queue that failed ${MAX_RECEIVE_COUNT} deliveries`);
    }
    this.queues = queues;
    this.deadLetterQueues = deadLetterQueues;
  }
}

/**
 * Six times the slowest consumer's timeout, as the Lambda SQS event source guide
 * recommends: a batch still being processed (or retried after throttling) must not
 * become visible to a second consumer. 30 s (the SQS default) when no worker consumes it.
 */
function visibilityTimeout(workers: readonly WorkerSpec[], queue: QueueName): Duration {
  const timeouts = workers.flatMap((worker) =>
    worker.trigger.kind === 'queue' && worker.trigger.queue === queue ? [worker.timeoutSeconds] : [],
  );
  return Duration.seconds(Math.max(30, ...timeouts.map((seconds) => 6 * seconds)));
}
