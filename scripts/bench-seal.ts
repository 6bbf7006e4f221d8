/**
 * Times sealing one epoch of 100,000 operations (`npm run bench` also
 * times sealing). Self-contained: starts its own in-memory DynamoDB Local and s3rver (reached
 * on 127.0.0.1 only), writes the operation rows straight into the table in the ledger's
 * layout (BatchWriteItem, bounded; 64 agents, so the time index's shards fill as they do in
 * use), runs one sealer pass over them and prints the figures: the whole pass (fence, settle
 * wait, window read, Merkle root, leaf list, epoch item), and its parts. The pass writes no
 * operation row (docs/STORAGE.md). Everything it started is stopped on the way out, and a
 * hard timeout bounds the whole run.
 *
 *   npx tsx scripts/bench-seal.ts            # 100,000 operations
 *   BENCH_SEAL_OPERATIONS=20000 npx tsx scripts/bench-seal.ts
 *
 * DynamoDB Local is far slower per request than DynamoDB (tens of ms per write on a small
 * machine), so the figure is an upper bound of what the same code does in AWS.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localDynamoClient, startDynamoDbLocal } from '../local/dynamodb-local.js';
import { applyEnv, localEnv } from '../local/env.js';
import { ensureLocalKeys } from '../local/keys.js';
import { startS3Local } from '../local/s3-local.js';
import { ensureTable } from '../local/table.js';

const OPERATIONS = Number(process.env.BENCH_SEAL_OPERATIONS ?? 100_000);
const WRITE_CONCURRENCY = 16;
const HARD_TIMEOUT_MS = 30 * 60_000;
const EPOCH_MS = 300_000;
const GRACE_MS = 60_000;
/** An aligned past window: every operation falls in [T, T + E). */
const T = 1_700_000_100_000 - (1_700_000_100_000 % EPOCH_MS);

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  if (!Number.isSafeInteger(OPERATIONS) || OPERATIONS < 1 || OPERATIONS > 1_000_000) {
    throw new Error('BENCH_SEAL_OPERATIONS must be an integer in 1..1000000');
  }
  const scratch = await mkdtemp(join(tmpdir(), 'ledger-bench-seal-'));
  const stops: (() => Promise<void>)[] = [() => rm(scratch, { recursive: true, force: true })];
  try {
    const [dynamo, s3, keys] = await Promise.all([
      startDynamoDbLocal({ inMemory: true }).then((engine) => (stops.push(() => engine.stop()), engine)),
      startS3Local({ buckets: ['bench-data', 'bench-anchors'] }).then((engine) => (stops.push(() => engine.stop()), engine)),
      ensureLocalKeys(join(scratch, 'keys')),
    ]);
    const client = localDynamoClient(dynamo.endpoint);
    await ensureTable(client, 'bench');
    client.destroy();
    applyEnv({
      ...localEnv({ tableName: 'bench', dataBucket: 'bench-data', anchorsBucket: 'bench-anchors', dynamoEndpoint: dynamo.endpoint, s3Endpoint: s3.endpoint, keys }),
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    });

    // Imported once the environment is set: config() and the SDK clients read it on first use.
    const { fixtureOp, writeOperationRows } = await import('../test/support/epoch-fixtures.js');
    const { forEachBounded } = await import('../lambdas/shared/bounded.js');
    const { operationsInRange } = await import('../lambdas/store/operation-windows.js');
    const { config } = await import('../lambdas/config.js');
    const { merkleRootB64u } = await import('@agent-ledger/protocol');
    const { runSealer } = await import('../lambdas/domain/epochs/run-sealer.js');
    const { sealableEnd } = await import('../lambdas/domain/epochs/window.js');
    // Also after POWERTOOLS_METRICS_DISABLED: imported before it, the metrics module printed the epoch's signing metric.
    const { signer } = await import('../lambdas/runtime/signer.js');

    const org = randomUUID();
    const ops = Array.from({ length: OPERATIONS }, (_, i) => fixtureOp(T + Math.floor((i * EPOCH_MS) / OPERATIONS), `bench-agent-${i % 64}`));
    const chunks = Array.from({ length: Math.ceil(ops.length / 500) }, (_, i) => ops.slice(i * 500, (i + 1) * 500));
    let started = performance.now();
    await forEachBounded(chunks, WRITE_CONCURRENCY, (chunk) => writeOperationRows(org, chunk));
    const writeMs = performance.now() - started;

    const now = T + EPOCH_MS + GRACE_MS;
    started = performance.now();
    const found = await operationsInRange(org, T, sealableEnd(now, EPOCH_MS, GRACE_MS));
    const queryMs = performance.now() - started;
    started = performance.now();
    merkleRootB64u(found.map((op) => op.chain_hash));
    const rootMs = performance.now() - started;
    if (found.length !== OPERATIONS) throw new Error(`index shows ${found.length} of ${OPERATIONS} operations`);

    // Memory of the sealing itself (the sealer worker's Lambda memory is sized from it,
    // lambdas/workers/worker-table.ts): resident set size sampled while it runs, against the
    // process just before, which already holds the fixtures written above.
    const rssBefore = process.memoryUsage.rss();
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 20);
    // The settle wait of a deployment (LEDGER_EPOCH_SETTLE_MS) is part of the figure.
    const settleMs = config().epochSettleMs;
    started = performance.now();
    const report = await runSealer({
      now,
      epochMs: EPOCH_MS,
      graceMs: GRACE_MS,
      settleMs,
      deadline: Date.now() + HARD_TIMEOUT_MS,
      leaseUntil: Date.now() + HARD_TIMEOUT_MS,
      holder: 'bench',
      tsa: undefined,
      signer: signer(),
    });
    const sealMs = performance.now() - started;
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    if (report.errors.length > 0 || report.operations_sealed !== OPERATIONS || report.epochs_created !== 1) {
      throw new Error(`sealing failed: ${JSON.stringify(report)}`);
    }

    const result = {
      benchmark: 'seal-epoch',
      operations: OPERATIONS,
      seal_ms: Math.round(sealMs),
      operations_per_second: Math.round(OPERATIONS / (sealMs / 1000)),
      settle_ms: settleMs,
      window_read_ms: Math.round(queryMs),
      merkle_root_ms: Math.round(rootMs),
      rows_write_ms: Math.round(writeMs),
      seal_rss_before_mb: mb(rssBefore),
      seal_rss_peak_mb: mb(rssPeak),
      seal_rss_growth_mb: mb(rssPeak - rssBefore),
    };
    process.stdout.write(
      `sealing one epoch of ${OPERATIONS} operations (DynamoDB Local + s3rver): ${seconds(sealMs)} ` +
        `(${result.operations_per_second} ops/s; of it: settle wait ${seconds(settleMs)}; alone: window read ${seconds(queryMs)}, Merkle root ${rootMs.toFixed(0)} ms; ` +
        `writing the rows took ${seconds(writeMs)}); resident memory ${mb(rssBefore)} MB before, ` +
        `${mb(rssPeak)} MB at the peak of sealing (+${mb(rssPeak - rssBefore)} MB)\n${JSON.stringify(result)}\n`,
    );
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

const timer = setTimeout(() => {
  process.stderr.write(`bench-seal: gave up after ${HARD_TIMEOUT_MS / 60_000} minutes\n`);
  process.exit(1);
}, HARD_TIMEOUT_MS);
timer.unref();

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench-seal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
