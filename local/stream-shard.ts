/**
 * One read of one shard of the table's stream, as the local stream poller makes it
 * (stream-poller.ts) and the DynamoDB event source does in AWS: a GetRecords from the shard's
 * stream position, the records handed to each worker that wants them, then the stream position moved past
 * what was handled, or the first failed record retried after a growing pause and, after
 * MAX_ATTEMPTS, the batch given up so the shard moves on.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import {
  GetRecordsCommand,
  GetShardIteratorCommand,
  type DynamoDBStreamsClient,
  type GetRecordsCommandOutput,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { WorkerSpec } from '../lambdas/workers/worker-spec.js';
import { loadHandler } from './handler-modules.js';
import { lambdaContext } from './lambda-context.js';
import { toLambdaRecord } from './stream-record.js';

const MAX_ATTEMPTS = 5;
/** GetRecords errors after which the shard is read on with a new iterator from its stream position. */
const RENEWED_ITERATOR_ERRORS = new Set(['ExpiredIteratorException', 'TrimmedDataAccessException']);

/** A batch given up after MAX_ATTEMPTS (what the on-failure destination receives in AWS). */
export interface GivenUpBatch {
  worker: string;
  records: number;
  firstSequenceNumber: string;
}

/** The stream and what every shard's reads share: the workers, the stream positions and the batches given up. */
export interface StreamSource {
  streams: DynamoDBStreamsClient;
  streamArn: string;
  workers: readonly WorkerSpec[];
  /** The last sequence number handled, per shard. */
  positions: Record<string, string>;
  givenUp: GivenUpBatch[];
}

export interface ShardState {
  iterator: string | undefined;
  closed: boolean;
  attempts: number;
  retryAt: number;
}

export const newShardState = (): ShardState => ({ iterator: undefined, closed: false, attempts: 0, retryAt: 0 });

/** The worker's event filter: new items of its `itemTypes`. */
function wanted(worker: WorkerSpec, record: StreamRecord): boolean {
  const trigger = worker.trigger;
  if (trigger.kind !== 'stream' || record.eventName !== 'INSERT') return false;
  const type = record.dynamodb?.NewImage?.type?.S;
  return type !== undefined && trigger.itemTypes.includes(type);
}

/** An iterator just after the shard's stream position, or at its start when it has none. */
async function iteratorFor(source: StreamSource, shardId: string): Promise<string | undefined> {
  const after = source.positions[shardId];
  const out = await source.streams.send(
    new GetShardIteratorCommand({
      StreamArn: source.streamArn,
      ShardId: shardId,
      ShardIteratorType: after ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON',
      ...(after ? { SequenceNumber: after } : {}),
    }),
  );
  return out.ShardIterator;
}

/** Hands `records` to each worker; returns the sequence number of the first record not handled. */
async function deliver(source: StreamSource, records: StreamRecord[]): Promise<string | undefined> {
  for (const worker of source.workers) {
    const batchSize = worker.trigger.kind === 'stream' ? worker.trigger.batchSize : 100;
    const mine = records.filter((record) => wanted(worker, record));
    for (let start = 0; start < mine.length; start += batchSize) {
      const batch = mine.slice(start, start + batchSize);
      try {
        const handler = await loadHandler<DynamoDBStreamEvent, DynamoDBBatchResponse | void>('workers', worker.handler);
        const response = await handler({ Records: batch.map((record) => toLambdaRecord(record, source.streamArn, record.awsRegion ?? process.env.AWS_REGION ?? 'us-east-1')) }, lambdaContext(worker.id, worker.timeoutSeconds));
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

/** One GetRecords; undefined when the iterator had to be dropped, to be asked again from the stream position. */
async function readRecords(source: StreamSource, state: ShardState, iterator: string): Promise<GetRecordsCommandOutput | undefined> {
  try {
    return await source.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
  } catch (error) {
    // An expired iterator, or one DynamoDB Local calls trimmed although nothing aged out (it does so
    // now and then on a fresh shard read from TRIM_HORIZON, aws/aws-sdk-java#2923): asked again from the
    // stream position, the shard reads on. Keeping the iterator would fail the same way on every pass.
    if (RENEWED_ITERATOR_ERRORS.has((error as Error).name)) {
      state.iterator = undefined;
      return undefined;
    }
    throw error;
  }
}

/** Every record was handled: the stream position moves past the last, the shard reads on (or is closed). */
function advance(source: StreamSource, shardId: string, state: ShardState, records: StreamRecord[], next: string | undefined): void {
  if (records.length > 0) source.positions[shardId] = records.at(-1)!.dynamodb!.SequenceNumber!;
  state.iterator = next;
  state.attempts = 0;
  if (!next) state.closed = true;
}

/** A record failed: everything before it is done; it is retried after a pause, or given up after MAX_ATTEMPTS. */
function retryOrGiveUp(source: StreamSource, shardId: string, state: ShardState, records: StreamRecord[], failedAt: string, next: string | undefined): void {
  const index = records.findIndex((record) => record.dynamodb?.SequenceNumber === failedAt);
  if (index > 0) source.positions[shardId] = records[index - 1]!.dynamodb!.SequenceNumber!;
  state.attempts += 1;
  if (state.attempts >= MAX_ATTEMPTS) {
    source.givenUp.push({ worker: source.workers.map((worker) => worker.id).join(','), records: records.length - Math.max(0, index), firstSequenceNumber: failedAt });
    process.stderr.write(`${JSON.stringify({ level: 'ERROR', source: 'local-stream', message: 'stream batch given up', sequence_number: failedAt })}\n`);
    source.positions[shardId] = records.at(-1)!.dynamodb!.SequenceNumber!;
    state.iterator = next;
    state.attempts = 0;
  } else {
    state.iterator = undefined; // re-positioned after the stream position
    state.retryAt = Date.now() + 50 * 2 ** state.attempts;
  }
}

/** One GetRecords on one shard, its records delivered; returns how many records it read. */
export async function pollShard(source: StreamSource, shardId: string, state: ShardState): Promise<number> {
  if (Date.now() < state.retryAt) return 0;
  state.iterator ??= await iteratorFor(source, shardId);
  if (!state.iterator) {
    state.closed = true;
    return 0;
  }
  const out = await readRecords(source, state, state.iterator);
  if (!out) return 0;
  const records = out.Records ?? [];
  const failedAt = records.length > 0 ? await deliver(source, records) : undefined;
  if (failedAt === undefined) advance(source, shardId, state, records, out.NextShardIterator);
  else retryOrGiveUp(source, shardId, state, records, failedAt, out.NextShardIterator);
  return records.length;
}
