/**
 * What runs on top of the storage engines once the environment is set: the queue workers,
 * the schedule timer and the HTTP server. Shared by `npm start` (stack.ts) and the e2e test
 * stack (test/support/test-stack.ts), so tests exercise the same wiring users run.
 */
import { memoryQueue, type MemoryQueue } from '../lambdas/adapters/local/memory-queue.js';
import { resetConfigForTests } from '../lambdas/config.js';
import { workerList } from '../lambdas/workers/worker-table.js';
import { applyEnv } from './env.js';
import { startHttpServer } from './http-server.js';
import { startSchedule, type Schedule } from './schedule.js';
import { startQueueWorkers, type QueueWorkersOptions } from './workers.js';

export interface ServeOptions {
  /** HTTP port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** Interval of the schedule timer (LEDGER_EPOCH_MS). */
  epochMs: number;
  queueWorkers?: QueueWorkersOptions;
  /** The built console to serve (default console/dist; local/console-assets.ts). */
  consoleDir?: string;
}

export interface Serving {
  url: string;
  port: number;
  queue: MemoryQueue;
  schedule: Schedule;
  /** Stops accepting requests, then the timer, then the workers. Idempotent. */
  stop(): Promise<void>;
}

export async function startServing(options: ServeOptions): Promise<Serving> {
  const queue = memoryQueue();
  const stopWorkers = startQueueWorkers(queue, workerList, options.queueWorkers);
  const schedule = startSchedule(workerList, options.epochMs);
  let http;
  try {
    http = await startHttpServer({ port: options.port, ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}) });
  } catch (error) {
    await schedule.stop();
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
      stopWorkers();
      restorePublicUrl();
    })());
  return { url: http.url, port: http.port, queue, schedule, stop };
}
