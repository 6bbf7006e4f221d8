/**
 * The local stand-in for the DynamoDB event source of `stream` workers (docs/ARCHITECTURE.md, Local
 * stack; lambdas/workers/worker-spec.ts): polls DynamoDB Local's stream of the table and
 * hands each worker its records as a DynamoDBStreamEvent, as Lambda does in AWS:
 *
 * - per shard, in order, parents before their children, at most `batchSize` records a call,
 *   only the new items of the worker's `itemTypes` (the event filter);
 * - the partial batch response (`batchItemFailures`) moves the stream position to just before the
 *   first failed record, which is retried with a growing pause; a handler that throws fails
 *   the whole batch. After MAX_ATTEMPTS (stream-shard.ts) the batch is given up and logged (the on-failure
 *   destination in AWS) so the shard moves on;
 * - stream positions (the last sequence number handled per shard) survive a stop: `npm start`
 *   keeps them in the data directory, so records committed while the stack was down are
 *   forwarded at the next start, and records already forwarded are not forwarded again.
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, type Shard } from '@aws-sdk/client-dynamodb-streams';
import { readFile, writeFile } from 'node:fs/promises';
import type { WorkerSpec } from '../lambdas/workers/worker-spec.js';
import { SDK_LOGGER } from '../lambdas/sdk-client-settings.js';
import { LOCAL_CREDENTIALS } from './dynamodb-local.js';
import { newShardState, pollShard, type GivenUpBatch, type ShardState, type StreamSource } from './stream-shard.js';

const IDLE_POLL_MS = 100;
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

interface StreamPollerOptions {
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
  /** Batches given up after their last attempt (what the on-failure destination receives in AWS; stream-shard.ts). */
  readonly givenUp: GivenUpBatch[];
}

/** What the passes over the shards have seen: each shard's state, the shard list and when it was read, how many passes ran (and how many idle ones in a row). */
interface Passes {
  shards: Map<string, ShardState>;
  shardList: Shard[];
  shardsReadAt: number;
  count: number;
  idle: number;
}

/** The table's stream, and a client to read it. */
async function openStream(options: StreamPollerOptions): Promise<Pick<StreamSource, 'streams' | 'streamArn'>> {
  const table = await options.dynamo.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = table.Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`table ${options.tableName} has no stream (local/table.ts enables it)`);
  // The SDK's default logger would have every GetRecords answer (up to 1,000 new images) copied and masked for nothing.
  const streams = new DynamoDBStreamsClient({ endpoint: options.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, logger: SDK_LOGGER });
  return { streams, streamArn };
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

/** Reads the shard list again when every known shard is closed or the list is older than SHARD_REFRESH_MS. */
async function refreshShards(source: StreamSource, passes: Passes): Promise<void> {
  const anyOpen = passes.shardList.some((shard) => !passes.shards.get(shard.ShardId!)?.closed);
  if (anyOpen && Date.now() - passes.shardsReadAt <= SHARD_REFRESH_MS) return;
  const described = await source.streams.send(new DescribeStreamCommand({ StreamArn: source.streamArn }));
  passes.shardList = ordered(described.StreamDescription?.Shards ?? []);
  passes.shardsReadAt = Date.now();
}

/** One pass: every open shard read once, in parent-first order, then the stream positions saved. */
async function pass(source: StreamSource, passes: Passes, positionStore: StreamPositionStore): Promise<void> {
  await refreshShards(source, passes);
  let handled = 0;
  for (const shard of passes.shardList) {
    const id = shard.ShardId!;
    let state = passes.shards.get(id);
    if (!state) passes.shards.set(id, (state = newShardState()));
    if (state.closed) continue;
    handled += await pollShard(source, id, state);
  }
  await positionStore.save(source.positions);
  passes.count += 1;
  // A shard waiting to retry a failed batch is not idle, however quiet this pass was.
  const retrying = [...passes.shards.values()].some((state) => state.attempts > 0);
  passes.idle = handled === 0 && !retrying ? passes.idle + 1 : 0;
}

/** Waits for two idle passes that both started after the call: everything committed before it was seen. */
async function drained(passes: Passes, stopped: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  passes.shardsReadAt = -Infinity; // a shard opened since the last refresh is read too
  const start = passes.count;
  while (!stopped() && !(passes.count >= start + 2 && passes.idle >= 2)) {
    if (Date.now() > deadline) throw new Error(`stream not drained within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function startStreamPoller(options: StreamPollerOptions): Promise<StreamPoller> {
  const workers = options.workers.filter((worker) => worker.trigger.kind === 'stream');
  const positionStore = options.positions ?? memoryStreamPositions();
  const positions = await positionStore.load();
  const source: StreamSource = { ...(await openStream(options)), workers, positions, givenUp: [] };
  const passes: Passes = { shards: new Map(), shardList: [], shardsReadAt: -Infinity, count: 0, idle: 0 };
  let stopped = workers.length === 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  function schedule(delay: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = pass(source, passes, positionStore).then(
        () => schedule(passes.idle > 0 ? IDLE_POLL_MS : 0),
        (error: unknown) => {
          process.stderr.write(`${JSON.stringify({ level: 'ERROR', source: 'local-stream', table: options.tableName, error: String(error) })}\n`);
          schedule(IDLE_POLL_MS);
        },
      );
    }, delay);
  }

  schedule(0);
  return {
    givenUp: source.givenUp,
    drain: (timeoutMs = 10_000) => drained(passes, () => stopped, timeoutMs),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running.catch(() => {});
      source.streams.destroy();
    },
  };
}
