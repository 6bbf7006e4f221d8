/**
 * The local stand-in for the DynamoDB event source of `stream` workers (docs/ARCHITECTURE.md, Local
 * stack; lambdas/workers/worker-spec.ts): polls DynamoDB Local's stream of the table and
 * hands each worker its records as a DynamoDBStreamEvent, as Lambda does in AWS:
 *
 * - per shard, in order, parents before their children, at most `batchSize` records a call,
 *   only the new items of the worker's `itemTypes` (the event filter);
 * - the partial batch response (`batchItemFailures`) moves the stream position to just before the
 *   first failed record, which is retried with a growing pause; a handler that throws fails
 *   the whole batch. After MAX_ATTEMPTS the batch is given up and logged (the on-failure
 *   destination in AWS) so the shard moves on;
 * - stream positions (the last sequence number handled per shard) survive a stop: `npm start`
 *   keeps them in the data directory, so records committed while the stack was down are
 *   forwarded at the next start, and records already forwarded are not forwarded again.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { toLambdaRecord } from './stream-record.js';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import { readFile, writeFile } from 'node:fs/promises';
import type { WorkerSpec } from '../lambdas/workers/worker-spec.js';
import { SDK_LOGGER } from '../lambdas/sdk-client-settings.js';
import { LOCAL_CREDENTIALS } from './dynamodb-local.js';
import { loadHandler } from './handler-modules.js';
import { lambdaContext } from './lambda-context.js';

const IDLE_POLL_MS = 100;
const MAX_ATTEMPTS = 5;
/** GetRecords errors after which the shard is read on with a new iterator from its stream position. */
const RENEWED_ITERATOR_ERRORS = new Set(['ExpiredIteratorException', 'TrimmedDataAccessException']);
/** How often the shard list is read again (shards split and close now and then). */
const SHARD_REFRESH_MS = 2_000;

/** Where the stream positions are kept: in memory (tests), or a JSON file (`npm start`). */
export interface StreamPositionStore {
  load(): Promise<Record<string, string>>;
  save(positions: Record<string, string>): Promise<void>;
}

export function memoryStreamPositions(initial: Record<string, string> = {}): StreamPositionStore & { current: Record<string, string> } {
  const store = {
    current: { ...initial },
    load: async () => ({ ...store.current }),
    save: async (positions: Record<string, string>) => {
      store.current = { ...positions };
    },
  };
  return store;
}

export function fileStreamPositions(path: string): StreamPositionStore {
  return {
    async load() {
      try {
        return JSON.parse(await readFile(path, 'utf8')) as Record<string, string>;
      } catch {
        return {};
      }
    },
    save: (positions) => writeFile(path, JSON.stringify(positions), { mode: 0o600 }),
  };
}

export interface StreamPollerOptions {
  dynamo: DynamoDBClient;
  endpoint: string;
  tableName: string;
  workers: readonly WorkerSpec[];
  positions?: StreamPositionStore;
}

export interface StreamPoller {
  /** Resolves once every record committed before the call has been handled (or given up). */
  drain(timeoutMs?: number): Promise<void>;
  /** Stops polling after the pass in progress. Idempotent. */
  stop(): Promise<void>;
  /** Batches given up after MAX_ATTEMPTS (what the on-failure destination receives in AWS). */
  readonly givenUp: { worker: string; records: number; firstSequenceNumber: string }[];
}

interface ShardState {
  iterator: string | undefined;
  closed: boolean;
  attempts: number;
  retryAt: number;
}

function wanted(worker: WorkerSpec, record: StreamRecord): boolean {
  const trigger = worker.trigger;
  if (trigger.kind !== 'stream' || record.eventName !== 'INSERT') return false;
  const type = record.dynamodb?.NewImage?.type?.S;
  return type !== undefined && trigger.itemTypes.includes(type);
}

export async function startStreamPoller(options: StreamPollerOptions): Promise<StreamPoller> {
  const workers = options.workers.filter((worker) => worker.trigger.kind === 'stream');
  const positionStore = options.positions ?? memoryStreamPositions();
  const positions = await positionStore.load();
  const givenUp: StreamPoller['givenUp'] = [];
  const table = await options.dynamo.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = table.Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`table ${options.tableName} has no stream (local/table.ts enables it)`);
  // The SDK's default logger would have every GetRecords answer (up to 1,000 new images) copied and masked for nothing.
  const streams = new DynamoDBStreamsClient({ endpoint: options.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, logger: SDK_LOGGER });
  const shards = new Map<string, ShardState>();
  let stopped = workers.length === 0;
  let passes = 0;
  let idlePasses = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function iteratorFor(shardId: string): Promise<string | undefined> {
    const after = positions[shardId];
    const out = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: after ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON',
        ...(after ? { SequenceNumber: after } : {}),
      }),
    );
    return out.ShardIterator;
  }

  /** Hands `records` to each worker; returns the sequence number of the first record not handled. */
  async function deliver(records: StreamRecord[]): Promise<string | undefined> {
    for (const worker of workers) {
      const batchSize = worker.trigger.kind === 'stream' ? worker.trigger.batchSize : 100;
      const mine = records.filter((record) => wanted(worker, record));
      for (let start = 0; start < mine.length; start += batchSize) {
        const batch = mine.slice(start, start + batchSize);
        try {
          const handler = await loadHandler<DynamoDBStreamEvent, DynamoDBBatchResponse | void>('workers', worker.handler);
          const response = await handler({ Records: batch.map((record) => toLambdaRecord(record, streamArn!, record.awsRegion ?? process.env.AWS_REGION ?? 'us-east-1')) }, lambdaContext(worker.id, worker.timeoutSeconds));
          const failed = response?.batchItemFailures?.[0]?.itemIdentifier;
          if (failed) return failed;
        } catch (error) {
          process.stderr.write(
            `${JSON.stringify({ level: 'ERROR', source: 'local-stream', worker: worker.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) })}\n`,
          );
          return batch[0]!.dynamodb!.SequenceNumber!;
        }
      }
    }
    return undefined;
  }

  /** One GetRecords on one shard; returns how many records it handled. */
  async function pollShard(shardId: string, state: ShardState): Promise<number> {
    if (Date.now() < state.retryAt) return 0;
    state.iterator ??= await iteratorFor(shardId);
    if (!state.iterator) {
      state.closed = true;
      return 0;
    }
    let out;
    try {
      out = await streams.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: 1000 }));
    } catch (error) {
      // An expired iterator, or one DynamoDB Local calls trimmed although nothing aged out (it does so
      // now and then on a fresh shard read from TRIM_HORIZON, aws/aws-sdk-java#2923): asked again from the
      // stream position, the shard reads on. Keeping the iterator would fail the same way on every pass.
      if (RENEWED_ITERATOR_ERRORS.has((error as Error).name)) {
        state.iterator = undefined;
        return 0;
      }
      throw error;
    }
    const records = out.Records ?? [];
    const failedAt = records.length > 0 ? await deliver(records) : undefined;
    if (failedAt === undefined) {
      if (records.length > 0) positions[shardId] = records.at(-1)!.dynamodb!.SequenceNumber!;
      state.iterator = out.NextShardIterator;
      state.attempts = 0;
      if (!out.NextShardIterator) state.closed = true;
      return records.length;
    }
    // Everything before the failed record is done; the failed one is retried after a pause.
    const index = records.findIndex((record) => record.dynamodb?.SequenceNumber === failedAt);
    if (index > 0) positions[shardId] = records[index - 1]!.dynamodb!.SequenceNumber!;
    state.attempts += 1;
    if (state.attempts >= MAX_ATTEMPTS) {
      givenUp.push({ worker: workers.map((worker) => worker.id).join(','), records: records.length - Math.max(0, index), firstSequenceNumber: failedAt });
      process.stderr.write(`${JSON.stringify({ level: 'ERROR', source: 'local-stream', message: 'stream batch given up', sequence_number: failedAt })}\n`);
      positions[shardId] = records.at(-1)!.dynamodb!.SequenceNumber!;
      state.iterator = out.NextShardIterator;
      state.attempts = 0;
    } else {
      state.iterator = undefined; // re-positioned after the stream position
      state.retryAt = Date.now() + 50 * 2 ** state.attempts;
    }
    return records.length;
  }

  /** Shards in an order where a parent comes before its children. */
  function ordered(list: Shard[]): Shard[] {
    const ids = new Set(list.map((shard) => shard.ShardId));
    const roots = list.filter((shard) => !shard.ParentShardId || !ids.has(shard.ParentShardId));
    const result: Shard[] = [];
    const visit = (shard: Shard) => {
      result.push(shard);
      for (const child of list.filter((candidate) => candidate.ParentShardId === shard.ShardId)) visit(child);
    };
    roots.forEach(visit);
    return result;
  }

  let shardList: Shard[] = [];
  let shardsReadAt = -Infinity;

  async function pass(): Promise<void> {
    const anyOpen = shardList.some((shard) => !shards.get(shard.ShardId!)?.closed);
    if (!anyOpen || Date.now() - shardsReadAt > SHARD_REFRESH_MS) {
      const described = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
      shardList = ordered(described.StreamDescription?.Shards ?? []);
      shardsReadAt = Date.now();
    }
    let handled = 0;
    for (const shard of shardList) {
      const id = shard.ShardId!;
      let state = shards.get(id);
      if (!state) shards.set(id, (state = { iterator: undefined, closed: false, attempts: 0, retryAt: 0 }));
      if (state.closed) continue;
      handled += await pollShard(id, state);
    }
    await positionStore.save(positions);
    passes += 1;
    // A shard waiting to retry a failed batch is not idle, however quiet this pass was.
    const retrying = [...shards.values()].some((state) => state.attempts > 0);
    idlePasses = handled === 0 && !retrying ? idlePasses + 1 : 0;
  }

  function schedule(delay: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = pass().then(
        () => schedule(idlePasses > 0 ? IDLE_POLL_MS : 0),
        (error: unknown) => {
          process.stderr.write(`${JSON.stringify({ level: 'ERROR', source: 'local-stream', table: options.tableName, error: String(error) })}\n`);
          schedule(IDLE_POLL_MS);
        },
      );
    }, delay);
  }

  schedule(0);
  return {
    givenUp,
    async drain(timeoutMs = 10_000) {
      // Two idle passes that both started after this call: everything committed before it was seen.
      const deadline = Date.now() + timeoutMs;
      shardsReadAt = -Infinity; // a shard opened since the last refresh is read too
      const start = passes;
      while (!stopped && !(passes >= start + 2 && idlePasses >= 2)) {
        if (Date.now() > deadline) throw new Error(`stream not drained within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running.catch(() => {});
      streams.destroy();
    },
  };
}
