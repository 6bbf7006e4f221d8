/**
 * The whole service on one machine (docs/ARCHITECTURE.md, Local stack): DynamoDB Local and s3rver
 * started in parallel, the table and buckets created, the key files made, the handlers'
 * environment set, then the queue workers, the schedule timer and the HTTP server; meanwhile the
 * files of the service's own client are built, and served once they are (local/client-files.ts).
 *
 * Whatever fails during start, what already started is stopped before the error reaches
 * the caller, so a failed `npm start` leaves no Java process behind.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { MemoryQueue } from '../lambdas/adapters/local/memory-queue.js';
import { parseConfig, resetConfigForTests } from '../lambdas/config.js';
import { localDynamoClient, startDynamoDbLocal } from './dynamodb-local.js';
import { createOwnerOnly, prepareDataDir } from './data-dir.js';
import { applyEnv, localEnv } from './env.js';
import { ensureLocalKeys } from './keys.js';
import { buildClientFiles } from './client-files.js';
import { startS3Local } from './s3-local.js';
import { startServing } from './serve.js';
import { fileStreamPositions } from './stream-poller.js';
import { ensureTable } from './table.js';
import { removeWhenGone } from './watchdog.js';

export const TABLE_NAME = 'ledger';
const DATA_BUCKET = 'ledger-data';
const ANCHORS_BUCKET = 'ledger-anchors';

interface LocalStackOptions {
  /** HTTP port on 127.0.0.1; 0 picks a free one. Default 3000. */
  port?: number;
  /** Where tables, objects and keys persist (unless `memory`). */
  dataDir: string;
  /** Keep nothing: in-memory tables, temp dirs for objects and keys, removed on stop. */
  memory: boolean;
  /** Environment for the handlers, applied over the stack's own (e.g. LEDGER_EPOCH_MS). */
  env?: Record<string, string>;
  /** Copy DynamoDB Local's output to stderr. */
  verbose?: boolean;
}

export interface LocalStack {
  url: string;
  port: number;
  dynamoEndpoint: string;
  s3Endpoint: string;
  /** Where objects and keys are: the data dir, or with `memory` a scratch dir deleted on stop. */
  storageDir: string;
  /** Resolves once the client files are built: true when they are served under /client/ (a failed build said why). */
  clientFiles: Promise<boolean>;
  /** The development OAuth provider is on (LEDGER_DEV_OAUTH=1): anyone can sign in as any password-less account. */
  devOAuth: boolean;
  /** Resolves once every event committed so far is on the events queue (the stream poller caught up). */
  drainEvents(): Promise<void>;
  /** The in-process queue; a benchmark that runs a worker in a process of its own closes its consumers. */
  queue: MemoryQueue;
  /** Stops everything in reverse order of start. Idempotent. */
  stop(): Promise<void>;
}

type Stopper = () => Promise<void> | void;

/** Runs the stoppers last-in first-out, each even if an earlier one failed. */
async function unwind(stoppers: Stopper[]): Promise<void> {
  for (const stopper of stoppers.splice(0).reverse()) {
    try {
      await stopper();
    } catch (error) {
      process.stderr.write(`ledger: error while stopping: ${(error as Error).message}\n`);
    }
  }
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  // The AWS SDK warns on Node 20 that its releases after January 2027 will need Node 22. That
  // concerns those releases (package-lock.json pins these), not this stack; Lambda runs Node 22.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const stoppers: Stopper[] = [];
  try {
    const dataDir = resolve(options.dataDir);
    let storageDir = dataDir;
    if (options.memory) {
      createOwnerOnly();
      // Objects and keys of an in-memory run live in one scratch dir, deleted on stop and,
      // by a guard process, even if we are killed.
      storageDir = await mkdtemp(join(tmpdir(), 'ledger-memory-'));
      const guard = removeWhenGone(storageDir);
      stoppers.push(() => guard.release());
    } else {
      await prepareDataDir(dataDir);
    }
    const keysDir = join(storageDir, 'keys');
    const s3Dir = join(storageDir, 's3');

    // Each engine registers its stopper as soon as it is up; allSettled first, so that when
    // one fails the other has finished starting (and registered) before we unwind.
    const started = <T extends { stop(): Promise<void> }>(engine: Promise<T>) =>
      engine.then((value) => {
        stoppers.push(() => value.stop());
        return value;
      });
    // The service's own client (local/client-files.ts), built while the stack starts and runs. A
    // build that fails leaves the stack running without it, and says why.
    const clientFiles = buildClientFiles((message) => process.stderr.write(`ledger: ${message}\n`));
    stoppers.push(() => clientFiles.stop());
    const starting = [
      // The JVM's start can pass 30 s on a busy 2-core machine (test/global-setup.ts allows the same).
      started(startDynamoDbLocal({ inMemory: options.memory, dbPath: join(storageDir, 'dynamodb'), echo: options.verbose ?? false, readyTimeoutMs: 120_000 })),
      started(startS3Local({ directory: s3Dir, buckets: [DATA_BUCKET, ANCHORS_BUCKET] })),
      ensureLocalKeys(keysDir),
    ] as const;
    await Promise.allSettled(starting);
    const [dynamo, s3, keys] = await Promise.all(starting);

    const client = localDynamoClient(dynamo.endpoint);
    try {
      await ensureTable(client, TABLE_NAME);
    } finally {
      client.destroy();
    }

    const restoreEnv = applyEnv({
      ...localEnv({
        tableName: TABLE_NAME,
        dataBucket: DATA_BUCKET,
        anchorsBucket: ANCHORS_BUCKET,
        dynamoEndpoint: dynamo.endpoint,
        s3Endpoint: s3.endpoint,
        keys,
      }),
      ...options.env,
    });
    stoppers.push(restoreEnv);
    // Fail now, naming the variable, rather than at the first request; and drop any
    // configuration cached from an earlier environment.
    const config = parseConfig(process.env);
    resetConfigForTests();

    const serving = await startServing({
      port: options.port ?? 3000,
      epochMs: config.epochMs,
      clientFiles: clientFiles.source,
      // Kept with the table, so events committed while the stack was down go out at the next start.
      // The file keeps the name it had before the stream positions were called so, so that a data
      // directory made then resumes where it stood instead of forwarding its stream again.
      ...(options.memory ? {} : { positions: fileStreamPositions(join(storageDir, 'stream-checkpoints.json')) }),
    });
    stoppers.push(() => serving.stop());

    let stopping: Promise<void> | undefined;
    return {
      url: serving.url,
      port: serving.port,
      dynamoEndpoint: dynamo.endpoint,
      s3Endpoint: s3.endpoint,
      storageDir,
      clientFiles: clientFiles.done.then((dir) => dir !== undefined),
      devOAuth: config.devOAuth,
      drainEvents: () => serving.stream.drain(),
      queue: serving.queue,
      stop: () => (stopping ??= unwind(stoppers)),
    };
  } catch (error) {
    await unwind(stoppers);
    throw error;
  }
}
