/**
 * The worker table's entry shape: background functions (SQS consumers, the table's stream
 * consumer and the scheduled epoch sealer). Like the route table it is data: CDK creates one
 * function per entry with its trigger and grants; the local stack wires the same handler
 * modules to the in-process queue, the stream poller and the schedule timer.
 */
import type { QueueName } from '../domain/ports.js';
import type { Resource } from '../routes/route-spec.js';

export type WorkerTrigger =
  /**
   * The table's stream (DynamoDB Streams, new images): a DynamoDB event source with partial
   * batch responses (`batchItemFailures`), bisection, bounded retries and an on-failure
   * dead-letter queue in AWS (lib/workers.ts); locally a poller of DynamoDB Local's stream
   * (local/stream-poller.ts). `itemTypes` are the `type` values of the new
   * items the worker wants (an event filter in AWS, so other writes invoke nothing).
   */
  | { kind: 'stream'; batchSize: number; itemTypes: readonly string[] }
  | {
      kind: 'queue';
      queue: QueueName;
      batchSize: number;
      /**
       * Batches processed at once: the event source mapping's MaximumConcurrency in AWS (2 to
       * 1000), the in-process queue's concurrency locally. Default: AWS scales by itself, the
       * local queue runs one batch at a time.
       */
      maxConcurrency?: number;
      /**
       * The message body member whose values take turns (locally): the in-process queue
       * hands out the oldest message of each value in rotation rather than all messages in
       * send order, so one organization's backlog does not delay another's job.
       */
      fairBy?: 'org_id';
    }
  /** EventBridge schedule in AWS (every 5 minutes); the LEDGER_EPOCH_MS timer locally. */
  | { kind: 'schedule' };

export interface WorkerSpec {
  readonly id: string;
  /** Module under lambdas/workers/, without extension; it exports `handler`. */
  readonly handler: string;
  readonly trigger: WorkerTrigger;
  readonly uses: readonly Resource[];
  readonly timeoutSeconds: number;
  /** Lambda memory in MB (default 512); CPU grows with it. */
  readonly memorySize?: number;
  /**
   * Concurrency set aside for the worker and capping it: it can neither be starved by API
   * traffic nor run more copies than this at once. Unset: the account's shared pool.
   */
  readonly reservedConcurrency?: number;
  /** Files of npm packages copied into `dir` next to the bundle (fonts): data the code reads at run time. */
  readonly bundleAssets?: BundleAssets;
}

export interface BundleAssets {
  readonly dir: string;
  /** Paths inside node_modules, e.g. `@scope/package/file.ttf`. */
  readonly packageFiles: readonly string[];
}
