/**
 * The background functions of workerList (lambdas/workers/worker-table.ts), each wired to its
 * trigger: an SQS queue, the table's stream, or the epoch schedule. The schedule rule exists
 * even while no worker targets it, so the sealer only has to be added to the worker table.
 */
import { join } from 'node:path';
import { Duration, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueName } from '../lambdas/domain/ports.js';
import type { WorkerSpec } from '../lambdas/workers/worker-spec.js';
import { LedgerFunction, type FunctionUse } from './function.js';
import { EPOCH } from './settings.js';

export interface LedgerWorkersProps {
  readonly workers: readonly WorkerSpec[];
  /** Directory holding `workers/<handler>.ts`. */
  readonly lambdasDir: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly queues: Readonly<Record<QueueName, Queue>>;
  /** The table whose stream `stream` workers read. */
  readonly table: ITable;
}

/**
 * Attempts of a stream batch before it is handed to the on-failure destination (the record's
 * position, not its content: an operator redrives from the table). A failing record blocks its
 * shard meanwhile, so the attempts are few and bisecting finds the culprit.
 */
const STREAM_RETRY_ATTEMPTS = 10;

export class LedgerWorkers extends Construct {
  /** Every worker function with what its entry uses, for grants.ts. */
  readonly functions: readonly FunctionUse[];
  /** Every 5 minutes (SPEC.md §6, PROTOCOL.md Merkle epochs): runs the epoch sealer. */
  readonly epochSchedule: Rule;

  constructor(scope: Construct, id: string, props: LedgerWorkersProps) {
    super(scope, id);
    this.epochSchedule = new Rule(this, 'EpochSchedule', {
      description: 'agent-ledger: seal the Merkle epoch every 5 minutes',
      schedule: Schedule.rate(EPOCH),
    });

    this.functions = props.workers.map((worker) => {
      const fn = new LedgerFunction(this, worker.id, {
        entry: join(props.lambdasDir, 'workers', `${worker.handler}.ts`),
        description: `agent-ledger worker ${worker.id}`,
        environment: props.environment,
        timeoutSeconds: worker.timeoutSeconds,
        ...(worker.memoryMb ? { memorySize: worker.memoryMb } : {}),
        ...(worker.bundleAssets ? { bundleAssets: worker.bundleAssets } : {}),
      });
      if (worker.trigger.kind === 'stream') {
        // Where batches that kept failing go: their shard and sequence numbers, kept 14 days.
        const onFailure = new Queue(this, `${worker.id}Failures`, {
          encryption: QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          retentionPeriod: Duration.days(14),
        });
        Validations.of(onFailure).acknowledge({
          id: 'AwsSolutions-SQS3',
          reason:
            'This queue is itself the on-failure destination of the stream worker: it holds the positions of ' +
            'batches that kept failing for 14 days, for an operator to redrive; nothing consumes it, so a ' +
            'dead-letter queue behind it would never receive anything.',
        });
        fn.function.addEventSource(
          new DynamoEventSource(props.table, {
            startingPosition: StartingPosition.TRIM_HORIZON,
            batchSize: worker.trigger.batchSize,
            // The worker names the first record it did not finish; only it and what follows are retried.
            reportBatchItemFailures: true,
            bisectBatchOnError: true,
            retryAttempts: STREAM_RETRY_ATTEMPTS,
            onFailure: new SqsDlq(onFailure),
            // Only new items of the worker's types invoke it (the outbox's events).
            filters: [
              FilterCriteria.filter({
                eventName: FilterRule.isEqual('INSERT'),
                dynamodb: { NewImage: { type: { S: FilterRule.or(...worker.trigger.itemTypes) } } },
              }),
            ],
          }),
        );
      } else if (worker.trigger.kind === 'queue') {
        fn.function.addEventSource(
          new SqsEventSource(props.queues[worker.trigger.queue], {
            batchSize: worker.trigger.batchSize,
            ...(worker.trigger.maxConcurrency ? { maxConcurrency: worker.trigger.maxConcurrency } : {}),
            // The worker reports the messages it failed; only those are retried (and, after
            // MAX_RECEIVE_COUNT deliveries, dead-lettered), not the whole batch.
            reportBatchItemFailures: true,
          }),
        );
      } else {
        this.epochSchedule.addTarget(new LambdaFunction(fn.function));
      }
      return { function: fn, uses: worker.uses };
    });
  }
}
