/**
 * The background functions of workerList (lambdas/workers/worker-table.ts), in their own
 * nested stack, each wired to its trigger with the settings that make failures visible and
 * bounded, whatever the worker:
 *
 * - `queue`: an SQS event source with partial batch responses (only the messages the worker
 *   reports failed are retried, then dead-lettered by the queue's redrive policy, queues.ts),
 *   and an alarm on the queue's backlog;
 * - `schedule`: the 5-minute EventBridge rule, whose target retries within one period and
 *   dead-letters what it cannot deliver, and Lambda's asynchronous retries, after which a
 *   failed run goes to the same dead-letter queue (its on-failure destination); an alarm
 *   when no run happened for 15 minutes;
 * - `stream`: the table's DynamoDB stream, filtered to new items of the worker's `itemTypes`,
 *   with partial batch responses, bisecting a failing batch, bounded retries and an on-failure
 *   dead-letter queue; an alarm on the iterator age.
 *
 * Every worker function has the error and throttle alarms, and every dead-letter queue an
 * alarm on its depth. The schedule rule exists even while no worker targets it.
 */
import { Duration, NestedStack, Validations } from 'aws-cdk-lib';
import { ComparisonOperator, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as FunctionTarget } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition, type IDestination } from 'aws-cdk-lib/aws-lambda';
import { Queue, QueueEncryption, type IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { MAX_DELAY_SECONDS, type QueueName } from '../lambdas/domain/ports.js';
import type { WorkerSpec, WorkerTrigger } from '../lambdas/workers/worker-spec.js';
import type { LedgerAlarms } from './alarms.js';
import { LedgerFunction, type FunctionUse } from './function.js';
import type { FunctionBundles } from './function-code.js';
import { nagToken, valueIn } from './imports.js';
import { pascal } from './names.js';
import { DELAYED_QUEUES } from './queues.js';
import { EPOCH } from './settings.js';

/**
 * Deliveries of a scheduled run (EventBridge to Lambda, then Lambda's own asynchronous
 * retries): a scheduled run older than one period is dropped, the next run does the same work.
 * Attempts at a stream batch before its position goes to the worker's dead-letter queue: a
 * failing record blocks its shard meanwhile, so they are few, and bisecting finds the culprit.
 */
export const WORKER_RETRIES = { schedule: 2, stream: 10 } as const;
/**
 * Stream records older than this are dead-lettered rather than retried further: well inside
 * the stream's 24 hours, so the records a dead letter names can still be read and replayed.
 */
export const STREAM_MAX_RECORD_AGE = Duration.hours(6);
/** A stream worker this far behind the table is alarmed (IteratorAge). */
export const STREAM_MAX_ITERATOR_AGE = Duration.minutes(5);
/** Actions Lambda's poller needs on an SQS queue for an event source mapping. */
export const QUEUE_CONSUME_ACTIONS = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'] as const;
/** Actions the Lambda service needs on the table's stream for an event source mapping. */
export const STREAM_READ_ACTIONS = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'] as const;
/** ListStreams names no stream: IAM accepts it only on "*" (the Lambda developer guide lists it for stream triggers). */
export const STREAM_LIST_ACTIONS = ['dynamodb:ListStreams'] as const;

type StreamTrigger = Extract<WorkerTrigger, { kind: 'stream' }>;

export interface LedgerWorkersProps {
  readonly workers: readonly WorkerSpec[];
  /** The code of every function (one bundle per worker id). */
  readonly bundles: FunctionBundles;
  readonly environment: Readonly<Record<string, string>>;
  readonly queues: Readonly<Record<QueueName, Queue>>;
  /** The ledger table, whose stream (TABLE_DESIGN.stream, data.ts) feeds `stream` workers. */
  readonly table: Table;
  readonly alarms: LedgerAlarms;
}

export class LedgerWorkers extends NestedStack {
  /** Every worker function with what its entry uses, for grants.ts. */
  readonly functions: readonly FunctionUse[];
  /** Every 5 minutes (docs/API.md §6, docs/PROTOCOL.md Merkle epochs): runs the epoch sealer. */
  readonly epochSchedule: Rule;
  /** Each `schedule` and `stream` worker's dead-letter queue, by worker id. */
  readonly deadLetterQueues: Readonly<Record<string, Queue>>;
  /** How far each `stream` worker is behind the table (IteratorAge, ms), by worker id: the outbox's lag. */
  readonly streamLag: Readonly<Record<string, IMetric>>;

  constructor(scope: Construct, id: string, props: LedgerWorkersProps) {
    super(scope, id, { description: 'agent-ledger workers (lambdas/workers/worker-table.ts)' });
    this.epochSchedule = new Rule(this, 'EpochSchedule', {
      description: 'agent-ledger: seal the Merkle epoch every 5 minutes',
      schedule: Schedule.rate(EPOCH),
    });
    const deadLetterQueues: Record<string, Queue> = {};
    const streamLag: Record<string, IMetric> = {};

    this.functions = props.workers.map((worker) => {
      const fn = new LedgerFunction(this, worker.id, {
        code: props.bundles.code(worker.id),
        description: `agent-ledger worker ${worker.id}`,
        environment: props.environment,
        timeoutSeconds: worker.timeoutSeconds,
        ...(worker.memorySize === undefined ? {} : { memorySize: worker.memorySize }),
        ...(worker.reservedConcurrency === undefined ? {} : { reservedConcurrency: worker.reservedConcurrency }),
      });
      props.alarms.watchFunction(fn, worker.id);
      const trigger = worker.trigger;
      switch (trigger.kind) {
        case 'queue': {
          const queue = props.queues[trigger.queue];
          // The mapping is made here rather than with SqsEventSource, whose grant adds
          // ChangeMessageVisibility and GetQueueUrl to what Lambda's poller needs.
          fn.role.addToPrincipalPolicy(new PolicyStatement({ actions: [...QUEUE_CONSUME_ACTIONS], resources: [queue.queueArn] }));
          fn.function.addEventSourceMapping(`${pascal(trigger.queue)}Queue`, {
            eventSourceArn: queue.queueArn,
            batchSize: trigger.batchSize,
            ...(trigger.maxConcurrency === undefined ? {} : { maxConcurrency: trigger.maxConcurrency }),
            // The worker reports the messages it failed; only those are retried (and, after
            // MAX_RECEIVE_COUNT deliveries, dead-lettered), not the whole batch.
            reportBatchItemFailures: true,
          });
          const delay = DELAYED_QUEUES.includes(trigger.queue) ? MAX_DELAY_SECONDS : 0;
          props.alarms.watchBacklog(fn, `${worker.id}-${trigger.queue}`, queue, Duration.seconds(delay + worker.timeoutSeconds));
          break;
        }
        case 'schedule': {
          const deadLetters = this.deadLetterQueue(worker.id, props.alarms);
          deadLetterQueues[worker.id] = deadLetters;
          this.epochSchedule.addTarget(
            new FunctionTarget(fn.function, { retryAttempts: WORKER_RETRIES.schedule, maxEventAge: EPOCH, deadLetterQueue: deadLetters }),
          );
          fn.function.configureAsyncInvoke({
            retryAttempts: WORKER_RETRIES.schedule,
            maxEventAge: EPOCH,
            onFailure: sendTo(fn, deadLetters),
          });
          props.alarms.watchSchedule(fn, worker.id);
          break;
        }
        case 'stream': {
          const deadLetters = this.deadLetterQueue(worker.id, props.alarms);
          deadLetterQueues[worker.id] = deadLetters;
          this.streamSource(fn, props.table, trigger, deadLetters);
          streamLag[worker.id] = fn.function.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(5) });
          props.alarms.alarm(fn, {
            name: `${worker.id}-IteratorAge`,
            description: `${worker.id} is more than ${STREAM_MAX_ITERATOR_AGE.toMinutes()} minutes behind the table's stream.`,
            metric: streamLag[worker.id]!,
            threshold: STREAM_MAX_ITERATOR_AGE.toMilliseconds(),
            comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
          });
          break;
        }
      }
      return { function: fn, uses: worker.uses };
    });
    this.deadLetterQueues = deadLetterQueues;
    this.streamLag = streamLag;
  }

  /** A worker's own dead-letter queue (for events or records Lambda gave up on), alarmed on its depth. */
  private deadLetterQueue(workerId: string, alarms: LedgerAlarms): Queue {
    const queue = new Queue(this, `${workerId}DeadLetters`, {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // The longest SQS allows: time for an operator to notice, look and replay.
      retentionPeriod: Duration.days(14),
    });
    Validations.of(queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        `This queue is itself a dead-letter queue: the on-failure destination of ${workerId} (and the dead-letter queue ` +
        'of its EventBridge target or stream mapping), which cdk-nag cannot see; it is alarmed on its depth instead.',
    });
    alarms.watchDeadLetters(queue, workerId, queue, `A failed ${workerId} invocation`);
    return queue;
  }

  /**
   * The stream mapping with explicit grants: the CDK helper grants dynamodb:ListStreams on
   * every table of the account ("*"); this names the one table's streams.
   */
  private streamSource(fn: LedgerFunction, table: Table, trigger: StreamTrigger, deadLetters: IQueue): void {
    const tableArn = valueIn(fn, 'LedgerTableArn', table.tableArn);
    fn.role.addToPrincipalPolicy(new PolicyStatement({ actions: [...STREAM_READ_ACTIONS], resources: [`${tableArn}/stream/*`] }));
    fn.role.addToPrincipalPolicy(new PolicyStatement({ actions: [...STREAM_LIST_ACTIONS], resources: ['*'] }));
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagToken(fn.role, tableArn)}/stream/*]`,
      reason:
        'Lambda reads the stream through the event source mapping with the execution role; the stream ARN carries a ' +
        'label that changes whenever the stream is re-enabled, so the grant names every stream of this one table ' +
        '(as the DynamoDB developer guide does), and no other table.',
    });
    Validations.of(fn.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'dynamodb:ListStreams has no resource-level permissions: IAM evaluates it only against "*". It lists stream ARNs, reads no data.',
    });
    // The mapping is made here rather than with DynamoEventSource, whose bind adds
    // table.grantStreamRead (stream reads on the table's streams and ListStreams on "*")
    // without saying why; the two statements above are the same, each acknowledged.
    fn.function.addEventSourceMapping('TableStream', {
      eventSourceArn: valueIn(fn, 'LedgerTableStreamArn', table.tableStreamArn as string),
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: trigger.batchSize,
      // Only new items of the worker's types invoke it (for the outbox, docs/EVENTS.md: the
      // operation and epoch rows); local/stream-poller.ts applies the same filter.
      filters: [
        FilterCriteria.filter({
          eventName: FilterRule.isEqual('INSERT'),
          dynamodb: { NewImage: { type: { S: FilterRule.or(...trigger.itemTypes) } } },
        }),
      ],
      // The worker names the first record it did not finish; only it and what follows are retried.
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      retryAttempts: WORKER_RETRIES.stream,
      maxRecordAge: STREAM_MAX_RECORD_AGE,
      onFailure: { bind: () => ({ destination: deadLetters.queueArn }) },
    });
    grantSend(fn, deadLetters);
  }
}

/** An on-failure destination that is `queue`, with sqs:SendMessage on it and nothing more (CDK's SqsDestination grants three actions). */
function sendTo(fn: LedgerFunction, queue: IQueue): IDestination {
  grantSend(fn, queue);
  return { bind: () => ({ destination: queue.queueArn }) };
}

function grantSend(fn: LedgerFunction, queue: IQueue): void {
  fn.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
}
