/**
 * The worker table's entry shape: background functions (SQS consumers, the table's stream
 * consumer and the scheduled epoch sealer). Like the route table it is data: CDK creates one function per entry with
 * its trigger and grants; the local stack wires the same handler modules to the in-process
 * queue and the schedule timer.
 */
import type { QueueName } from '../domain/ports.js';
import type { Resource } from '../routes/route-spec.js';

export type WorkerTrigger =
  /**
   * The table's stream (DynamoDB Streams, new images): a DynamoDB event source with partial
   * batch responses and an on-failure destination in AWS; locally a poller of DynamoDB
   * Local's stream (local/stream-poller.ts). `itemTypes` are the `type` values of the new
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
  /** Lambda memory in MB (default lib/function.ts DEFAULT_MEMORY_MB). */
  readonly memoryMb?: number;
  /** Files of npm packages copied into `dir` next to the bundle (fonts): data the code reads at run time. */
  readonly bundleAssets?: BundleAssets;
}

export interface BundleAssets {
  readonly dir: string;
  /** Paths inside node_modules, e.g. `@scope/package/file.ttf`. */
  readonly packageFiles: readonly string[];
}
