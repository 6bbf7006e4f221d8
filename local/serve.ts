/**
 * What runs on top of the storage engines once the environment is set: the queue workers,
 * the table's stream poller (the events outbox), the schedule timer and the HTTP server. Shared by `npm start` (stack.ts) and the e2e test
 * stack (test/support/test-stack.ts), so tests exercise the same wiring users run.
 */
import { memoryQueue, type MemoryQueue } from '../lambdas/adapters/local/memory-queue.js';
import { config, resetConfigForTests } from '../lambdas/config.js';
import { localDynamoClient } from './dynamodb-local.js';
import { workerList } from '../lambdas/workers/worker-table.js';
import { dynamo as handlerTableClient, s3 as handlerObjectClient } from '../lambdas/store/clients.js';
import { yieldToApi } from './background-priority.js';
import { applyEnv } from './env.js';
import type { ClientFilesSource } from './client-files.js';
import { startHttpServer } from './http-server.js';
import { startSchedule, type Schedule } from './schedule.js';
import { startStreamPoller, type StreamPositionStore, type StreamPoller } from './stream-poller.js';
import { startQueueWorkers, type QueueWorkersOptions } from './workers.js';

interface ServeOptions {
  /** HTTP port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** Interval of the schedule timer (LEDGER_EPOCH_MS). */
  epochMs: number;
  queueWorkers?: QueueWorkersOptions;
  /** The built console to serve (default console/dist; local/console-assets.ts). */
  consoleDir?: string;
  /** The client files to serve under /client/ (local/client-files.ts); none when omitted. */
  clientFiles?: ClientFilesSource;
  /** Where the stream poller keeps its stream positions; in memory when omitted. */
  positions?: StreamPositionStore;
}

interface Serving {
  url: string;
  port: number;
  queue: MemoryQueue;
  /** The poller of the table's stream (events outbox); `drain()` waits until it forwarded everything committed. */
  stream: StreamPoller;
  schedule: Schedule;
  /** Stops accepting requests, then the timer, then the workers. Idempotent. */
  stop(): Promise<void>;
}

export async function startServing(options: ServeOptions): Promise<Serving> {
  const queue = memoryQueue();
  // The handlers' table and object store clients (one per process): calls from workers yield to
  // API requests. LEDGER_LOCAL_WORKERS_YIELD=0 turns that off, to measure what it changes (scripts/bench-webhooks.ts).
  if (process.env.LEDGER_LOCAL_WORKERS_YIELD !== '0') {
    yieldToApi(handlerTableClient() as never);
    yieldToApi(handlerObjectClient() as never);
  }
  const stopWorkers = startQueueWorkers(queue, workerList, options.queueWorkers);
  const { dynamoEndpoint, tableName } = config();
  if (!dynamoEndpoint) throw new Error('the local stack needs LEDGER_DYNAMODB_ENDPOINT');
  const dynamo = localDynamoClient(dynamoEndpoint);
  let stream: StreamPoller;
  try {
    stream = await startStreamPoller({ dynamo, endpoint: dynamoEndpoint, tableName, workers: workerList, ...(options.positions ? { positions: options.positions } : {}) });
  } catch (error) {
    stopWorkers();
    dynamo.destroy();
    throw error;
  }
  const schedule = startSchedule(workerList, options.epochMs);
  let http;
  try {
    http = await startHttpServer({
      port: options.port,
      ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
      ...(options.clientFiles ? { clientFiles: options.clientFiles } : {}),
    });
  } catch (error) {
    await schedule.stop();
    await stream.stop();
    dynamo.destroy();
    stopWorkers();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`port ${options.port} is already in use; set PORT to another port (0 for any)`);
    throw error;
  }
  // Links (verification mails, the social sign-in redirect URI) are built on LEDGER_PUBLIC_URL
  // (config.ts); on one machine that is where this server listens, unless the user set it
  // (a proxy in front, another host name).
  const restorePublicUrl = process.env.LEDGER_PUBLIC_URL ? () => {} : applyEnv({ LEDGER_PUBLIC_URL: http.url });
  resetConfigForTests();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await http.close();
      await schedule.stop();
      await stream.stop();
      dynamo.destroy();
      stopWorkers();
      restorePublicUrl();
    })());
  return { url: http.url, port: http.port, queue, stream, schedule, stop };
}
