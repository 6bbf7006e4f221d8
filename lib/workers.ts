/**
 * The background functions of workerList (lambdas/workers/worker-table.ts), each wired to its
 * trigger: an SQS queue, or the epoch schedule. The schedule rule exists even while no worker
 * targets it, so the sealer only has to be added to the worker table.
 */
import { join } from 'node:path';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
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
}

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
      if (worker.trigger.kind === 'queue') {
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
