/**
 * The event sources of the template, run as Lambda runs them: SQS event source mappings
 * (batches of up to BatchSize, `batchItemFailures` made visible again, the rest deleted), the
 * table's stream mapping (records through the mapping's FilterCriteria, partial failures
 * retried from the first failed record up to MaximumRetryAttempts) and EventBridge schedules
 * (the Scheduled Event shape). Each mapping's own calls (sqs:ReceiveMessage...,
 * dynamodb:GetRecords...) are recorded against the function's role too: Lambda makes them
 * with the execution role.
 */
import { randomUUID } from 'node:crypto';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { SQSRecord } from 'aws-lambda';
import { toLambdaRecord } from '../../local/stream-record.js';
import { SDK_LOGGER } from '../../lambdas/sdk-client-settings.js';
import type { Json } from './assembly.js';
import type { Authorization } from './aws-requests.js';
import type { EventSourceMapping, Schedule } from './deployment.js';
import type { Invocation } from './function-host.js';
import { ACCOUNT, REGION } from './resolve.js';
import type { SqsQueues } from './sqs-standin.js';

type Invoke = (functionId: string, event: unknown, requestId: string) => Promise<Invocation>;
type RecordCalls = (functionId: string, calls: Authorization[]) => void;
type Failure = (functionId: string, what: string) => void;

/** How soon a failed message or record is tried again (AWS: the visibility timeout, the mapping's backoff). */
const RETRY_DELAY_MS = 1_000;
const POLL_MS = 200;

function batchItemFailures(outcome: Invocation): string[] | undefined {
  const result = outcome.result as { batchItemFailures?: { itemIdentifier: string }[] } | null | undefined;
  return result?.batchItemFailures?.map((failure) => failure.itemIdentifier);
}

export interface Triggers {
  /** Runs each schedule's target once now, as its rule would. */
  fireSchedules(): Promise<void>;
  stop(): Promise<void>;
}

interface TriggerOptions {
  mappings: readonly EventSourceMapping[];
  schedules: readonly Schedule[];
  queues: SqsQueues;
  dynamo: DynamoDBClient;
  dynamoEndpoint: string;
  tableName: string;
  invoke: Invoke;
  record: RecordCalls;
  onFailure: Failure;
  /** Interval of the schedules' timer; undefined runs them only through fireSchedules(). */
  scheduleEveryMs?: number;
}

export async function startTriggers(options: TriggerOptions): Promise<Triggers> {
  let stopped = false;
  const loops: Promise<void>[] = [];
  const wakers = new Map<string, () => void>();
  options.queues.onSend = (arn) => wakers.get(arn)?.();
  const sleep = (ms: number, key?: string) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      if (key) wakers.set(key, () => {
        clearTimeout(timer);
        resolve();
      });
    });

  for (const mapping of options.mappings.filter((candidate) => candidate.kind === 'sqs')) {
    // What Lambda's SQS poller calls with the function's role (the AWSLambdaSQSQueueExecutionRole actions).
    options.record(mapping.functionId, ['ReceiveMessage', 'DeleteMessage', 'GetQueueAttributes'].map((action) => ({ action: `sqs:${action}`, resource: mapping.sourceArn })));
    loops.push(
      (async () => {
        while (!stopped) {
          const batch = options.queues.receive(mapping.sourceArn, mapping.batchSize);
          if (batch.length === 0) {
            await sleep(POLL_MS, mapping.sourceArn);
            continue;
          }
          const records: SQSRecord[] = batch.map((message) => ({
            messageId: message.messageId,
            receiptHandle: message.receiptHandle!,
            body: message.body,
            attributes: {
              ApproximateReceiveCount: String(message.receiveCount),
              SentTimestamp: String(message.sentAt),
              SenderId: 'AROAREHEARSAL',
              ApproximateFirstReceiveTimestamp: String(Date.now()),
            },
            messageAttributes: {},
            md5OfBody: message.md5,
            eventSource: 'aws:sqs',
            eventSourceARN: mapping.sourceArn,
            awsRegion: REGION,
          }));
          const outcome = await options.invoke(mapping.functionId, { Records: records }, randomUUID());
          const failed = outcome.ok ? (mapping.reportBatchItemFailures ? (batchItemFailures(outcome) ?? []) : []) : batch.map((message) => message.messageId);
          if (!outcome.ok) options.onFailure(mapping.functionId, `SQS batch failed: ${outcome.error?.message ?? ''}`);
          for (const message of batch) {
            if (failed.includes(message.messageId)) options.queues.release(message, RETRY_DELAY_MS);
            else options.queues.delete(mapping.sourceArn, message);
          }
        }
      })(),
    );
  }

  const stream = options.mappings.find((candidate) => candidate.kind === 'dynamodb-stream');
  if (stream) {
    // What Lambda's stream poller calls with the function's role; ListStreams is authorized on "*" only.
    options.record(stream.functionId, [
      ...['DescribeStream', 'GetShardIterator', 'GetRecords'].map((action) => ({ action: `dynamodb:${action}`, resource: stream.sourceArn })),
      { action: 'dynamodb:ListStreams', resource: '*' },
    ]);
    const table = await options.dynamo.send(new DescribeTableCommand({ TableName: options.tableName }));
    const localStreamArn = table.Table?.LatestStreamArn;
    if (!localStreamArn) throw new Error(`table ${options.tableName} has no stream; the template's StreamSpecification was not applied`);
    const streams = new DynamoDBStreamsClient({ endpoint: options.dynamoEndpoint, region: REGION, credentials: { accessKeyId: 'rehearsal', secretAccessKey: 'rehearsal' }, logger: SDK_LOGGER });
    loops.push(pollStream(stream, localStreamArn, streams, options, () => stopped, sleep).finally(() => streams.destroy()));
  }

  const fireSchedules = async () => {
    await Promise.all(
      options.schedules.map(async (schedule) => {
        const event = {
          version: '0',
          id: randomUUID(),
          'detail-type': 'Scheduled Event',
          source: 'aws.events',
          account: ACCOUNT,
          time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
          region: REGION,
          resources: [`arn:aws:events:${REGION}:${ACCOUNT}:rule/${schedule.ruleName}`],
          detail: {},
        };
        const outcome = await options.invoke(schedule.functionId, event, randomUUID());
        if (!outcome.ok) options.onFailure(schedule.functionId, `scheduled invocation failed: ${outcome.error?.message ?? ''}`);
      }),
    );
  };
  let timer: NodeJS.Timeout | undefined;
  if (options.scheduleEveryMs !== undefined) {
    let running = false;
    timer = setInterval(() => {
      if (running) return;
      running = true;
      void fireSchedules().finally(() => (running = false));
    }, options.scheduleEveryMs);
  }

  return {
    fireSchedules,
    stop: async () => {
      stopped = true;
      if (timer) clearInterval(timer);
      for (const wake of wakers.values()) wake();
      await Promise.allSettled(loops);
    },
  };
}

/** Lambda event filtering, for the forms the templates use: nested objects ending in lists of allowed values. */
export function matchesFilter(pattern: Record<string, Json>, value: unknown): boolean {
  return Object.entries(pattern).every(([key, expected]) => {
    const actual = (value as Record<string, unknown> | undefined)?.[key];
    if (Array.isArray(expected)) {
      if (!expected.every((item) => typeof item === 'string' || typeof item === 'number')) {
        throw new Error(`the rehearsal's event filter supports value lists only, got ${JSON.stringify(expected)}`);
      }
      return expected.includes(actual as string);
    }
    return typeof expected === 'object' && expected !== null && matchesFilter(expected as Record<string, Json>, actual);
  });
}

async function pollStream(
  mapping: EventSourceMapping,
  streamArn: string,
  streams: DynamoDBStreamsClient,
  options: TriggerOptions,
  isStopped: () => boolean,
  sleep: (ms: number) => Promise<void>,
): Promise<void> {
  const positions = new Map<string, { iterator: string | undefined; after: string | undefined; closed: boolean }>();
  while (!isStopped()) {
    try {
      const description = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
      for (const shard of description.StreamDescription?.Shards ?? []) {
        if (!positions.has(shard.ShardId!)) positions.set(shard.ShardId!, { iterator: undefined, after: undefined, closed: false });
      }
      for (const [shardId, position] of positions) {
        if (position.closed) continue;
        position.iterator ??= (
          await streams.send(
            new GetShardIteratorCommand({
              StreamArn: streamArn,
              ShardId: shardId,
              ...(position.after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: position.after } : { ShardIteratorType: 'TRIM_HORIZON' }),
            }),
          )
        ).ShardIterator;
        if (!position.iterator) {
          position.closed = true;
          continue;
        }
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: position.iterator, Limit: 1000 }));
        let records = (page.Records ?? []).map((record) => toLambdaRecord(record, mapping.sourceArn, REGION));
        records = mapping.filterPatterns.length === 0 ? records : records.filter((record) => mapping.filterPatterns.some((pattern) => matchesFilter(pattern, record)));
        for (let start = 0; start < records.length; start += mapping.batchSize) {
          let batch = records.slice(start, start + mapping.batchSize);
          for (let attempt = 0; batch.length > 0; attempt++) {
            const outcome = await options.invoke(mapping.functionId, { Records: batch }, randomUUID());
            const failures = outcome.ok ? (batchItemFailures(outcome) ?? []) : [batch[0]!.dynamodb!.SequenceNumber!];
            if (failures.length === 0) break;
            if (attempt >= (mapping.maximumRetryAttempts ?? 10)) {
              options.onFailure(mapping.functionId, `stream batch given up after ${attempt + 1} attempts`);
              break;
            }
            const from = batch.findIndex((record) => failures.includes(record.dynamodb!.SequenceNumber!));
            batch = batch.slice(Math.max(from, 0));
            await sleep(RETRY_DELAY_MS);
          }
        }
        const last = page.Records?.at(-1)?.dynamodb?.SequenceNumber;
        if (last) position.after = last;
        position.iterator = page.NextShardIterator;
        if (!page.NextShardIterator) position.closed = true;
      }
    } catch (error) {
      const name = (error as Error).name;
      // DynamoDB Local trims and expires iterators; ask again from the last record handled.
      if (name === 'ExpiredIteratorException' || name === 'TrimmedDataAccessException') {
        for (const position of positions.values()) position.iterator = undefined;
      } else if (!isStopped()) {
        process.stderr.write(`rehearsal: stream poll failed: ${name}: ${(error as Error).message}\n`);
      }
    }
    await sleep(POLL_MS);
  }
}
