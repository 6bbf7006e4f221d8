/**
 * The local stack for e2e tests, on the engines test/global-setup.ts started once for the
 * run: each call makes its own table, buckets and key files (so test files run in parallel
 * without seeing each other's data), sets the handlers' environment, and serves HTTP on a
 * free port with the same workers and schedule wiring `npm start` uses (local/serve.ts).
 *
 * One test stack per test file: handler modules and the SDK clients they build are cached
 * per process (as in a warm Lambda), so they keep the first stack's environment. Start it
 * in `beforeAll` and stop it in `afterAll`.
 *
 * @example
 * let stack: TestStack;
 * beforeAll(async () => { stack = await startTestStack(); });
 * afterAll(() => stack.stop());
 * it('answers', async () => expect((await fetch(`${stack.baseUrl}/v1/health`)).status).toBe(200));
 */
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryQueue } from '../../lambdas/adapters/local/memory-queue.js';
import { parseConfig, resetConfigForTests } from '../../lambdas/config.js';
import { localDynamoClient } from '../../local/dynamodb-local.js';
import { applyEnv, localEnv } from '../../local/env.js';
import { ensureLocalKeys } from '../../local/keys.js';
import { ensureBuckets, localS3Client } from '../../local/s3-local.js';
import type { Schedule } from '../../local/schedule.js';
import type { StreamPositionStore, StreamPoller } from '../../local/stream-poller.js';
import { startServing } from '../../local/serve.js';
import { ensureTable } from '../../local/table.js';
import { removeWhenGone } from '../../local/watchdog.js';
import { testEndpoints } from './aws-clients.js';

export interface TestStackOptions {
  /** Extra environment for the handlers (e.g. `{ LEDGER_EPOCH_MS: '2000' }`), over the stack's own. */
  env?: Record<string, string>;
  /** Visibility timeout of the queue workers; default each worker's timeout. Short values make retry tests quick. */
  visibilityTimeoutMs?: number;
  /** The built console the server serves (default console/dist). */
  consoleDir?: string;
  /** The client files served under /client/ (lib/client-files/build.ts); none by default. */
  clientDir?: string;
  /** Where the stream poller keeps its stream positions (a test that restarts the forwarder shares them); in memory by default. */
  positions?: StreamPositionStore;
}

export interface TestStack {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  baseUrl: string;
  tableName: string;
  dataBucket: string;
  anchorsBucket: string;
  dynamoEndpoint: string;
  s3Endpoint: string;
  /** The in-process queue the handlers send to; `drain()` waits for the workers. */
  queue: MemoryQueue;
  /** The table's stream poller (the events outbox): `drain()` waits until every committed event is on the queue. */
  stream: StreamPoller;
  /** The epoch timer; `runNow()` runs the scheduled workers without waiting for it. */
  schedule: Schedule;
  stop(): Promise<void>;
}

export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const { dynamoEndpoint, s3Endpoint } = testEndpoints();
  // Bucket names: 3-63 lower-case characters; the suffix keeps files apart.
  const suffix = randomUUID().replaceAll('-', '').slice(0, 12);
  const tableName = `ledger-test-${suffix}`;
  const dataBucket = `ledger-data-${suffix}`;
  const anchorsBucket = `ledger-anchors-${suffix}`;

  const dynamo = localDynamoClient(dynamoEndpoint);
  const s3 = localS3Client(s3Endpoint);
  const keysDir = await mkdtemp(join(tmpdir(), 'ledger-test-keys-'));
  const keysGuard = removeWhenGone(keysDir); // deleted even if the test process is killed
  try {
    const [keys] = await Promise.all([
      ensureLocalKeys(keysDir),
      ensureTable(dynamo, tableName),
      ensureBuckets(s3, [dataBucket, anchorsBucket]),
    ]);
    const restoreEnv = applyEnv({
      ...localEnv({ tableName, dataBucket, anchorsBucket, dynamoEndpoint, s3Endpoint, keys }),
      // The e2e files sign up hundreds of users: scrypt at the floor config.ts allows, not
      // OWASP's N=2^17 (a file that tests the hashing itself sets '', the default).
      LEDGER_SCRYPT_N: '16384',
      ...options.env,
    });
    resetConfigForTests();
    let serving;
    try {
      serving = await startServing({
        port: 0,
        epochMs: parseConfig(process.env).epochMs,
        ...(options.visibilityTimeoutMs ? { queueWorkers: { visibilityTimeoutMs: options.visibilityTimeoutMs } } : {}),
        ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
        ...(options.clientDir ? { clientFiles: () => options.clientDir } : {}),
        ...(options.positions ? { positions: options.positions } : {}),
      });
    } catch (error) {
      restoreEnv();
      throw error;
    }
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        await serving.stop();
        serving.queue.purge();
        restoreEnv();
        resetConfigForTests();
        await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => {});
        dynamo.destroy();
        s3.destroy();
        await keysGuard.release();
      })());
    return {
      baseUrl: serving.url,
      tableName,
      dataBucket,
      anchorsBucket,
      dynamoEndpoint,
      s3Endpoint,
      queue: serving.queue,
      stream: serving.stream,
      schedule: serving.schedule,
      stop,
    };
  } catch (error) {
    dynamo.destroy();
    s3.destroy();
    await keysGuard.release();
    throw error;
  }
}
