/**
 * The worker table's entry shape: background functions (SQS consumers, the table's stream
 * consumer and the scheduled epoch sealer). Like the route table it is data: CDK creates one function per entry with
 * its trigger and grants; the local stack wires the same handler modules to the in-process
 * queue and the schedule timer.
 */
import type { QueueName } from '../domain/ports.js';
import type { Resource } from '../routes/route-spec.js';

export type WorkerTrigger =
  | { kind: 'queue'; queue: QueueName; batchSize: number }
  /**
   * The table's stream (DynamoDB Streams, new images): a DynamoDB event source with partial
   * batch responses and an on-failure destination in AWS; locally a poller of DynamoDB
   * Local's stream (local/stream-poller.ts). `itemTypes` are the `type` values of the new
   * items the worker wants (an event filter in AWS, so other writes invoke nothing).
   */
  | { kind: 'stream'; batchSize: number; itemTypes: readonly string[] }
  /** EventBridge schedule in AWS (every 5 minutes); the LEDGER_EPOCH_MS timer locally. */
  | { kind: 'schedule' };

export interface WorkerSpec {
  readonly id: string;
  /** Module under lambdas/workers/, without extension; it exports `handler`. */
  readonly handler: string;
  readonly trigger: WorkerTrigger;
  readonly uses: readonly Resource[];
  readonly timeoutSeconds: number;
}
