/**
 * `npm run bench` (exports and audit query, SPEC.md §4.6, §4.8): against its own in-memory
 * local stack on 127.0.0.1,
 *
 * 1. seeds BENCH_EXPORT_OPS (100,000) operations over 20 agents straight into the table and
 *    the data bucket (test/support/operation-seed.ts: signed, chained, with signed receipts,
 *    so that the export verifies), spread over the last BENCH_EXPORT_OPS / 10 seconds;
 * 2. exports all of them as JSON over HTTP and times it until done: seconds, operations per
 *    second and the peak RSS of this process (the worker runs in it, next to s3rver and the
 *    HTTP server: an upper bound of the worker's own), then verifies the file;
 * 3. exports the oldest BENCH_PDF_OPS (10,000) as PDF, the same way;
 * 4. times one 500-row audit query page over the whole organization (first page, with its
 *    total_count, and following pages: the time index's shards merged, then the rows by key)
 *    against a single raw Query of 500 entries of one shard, in the same run, and prints
 *    the ratios.
 *
 * Targets (issue text): JSON 100k within 60 s and peak RSS under 512 MB; PDF 10k within
 * 60 s; audit page p50 at most 3x the raw Query. Bounded and self-stopping.
 */
import { randomBytes } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { verifyExportBundle } from '@agent-ledger/protocol';
import { pdfAttachments } from '../client/src/verify/pdf-attachment.js';
import { startBenchStack } from './bench-stack.js';
import { apiClient, apiToken, type Api } from '../test/support/http-client.js';
import { newKey, registerAgent } from '../test/support/ledger-fixtures.js';

const OPS = Number(process.env.BENCH_EXPORT_OPS ?? 100_000);
const PDF_OPS = Math.min(OPS, Number(process.env.BENCH_PDF_OPS ?? 10_000));
const AGENTS = 20;
const SEED_CHUNK = 5_000;
const QUERY_RUNS = 15;
const HARD_TIMEOUT_MS = 40 * 60_000;
const log = (line: string) => process.stderr.write(`bench-export: ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Peak resident set size while `fn` runs, sampled every 50 ms. */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ value: T; peakMb: number; baseMb: number }> {
  const baseMb = process.memoryUsage().rss / 2 ** 20;
  let peak = baseMb;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss / 2 ** 20)), 50);
  try {
    return { value: await fn(), peakMb: peak, baseMb };
  } finally {
    clearInterval(timer);
  }
}

async function exportAndWait(api: Api, body: Record<string, unknown>): Promise<{ seconds: number; bytes: Uint8Array }> {
  const started = performance.now();
  const created = await api('POST', '/v1/exports', body);
  if (created.status !== 201) throw new Error(`create export: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.export.export_id as string;
  for (;;) {
    // The worker runs in this process: a long synchronous stretch of it (the PDF layout) can
    // outlast a keep-alive connection, so a poll that finds its connection closed asks again.
    const res = await api('GET', `/v1/exports/${id}`).catch(async (error: unknown) => {
      if (!(error instanceof TypeError)) throw error;
      await sleep(100);
      return api('GET', `/v1/exports/${id}`);
    });
    if (res.body.export.status === 'done') break;
    if (res.body.export.status === 'failed') throw new Error(`export failed: ${res.body.export.error}`);
    if (performance.now() - started > 20 * 60_000) throw new Error('export still running after 20 minutes');
    await sleep(200);
  }
  const seconds = (performance.now() - started) / 1000;
  const redirect = await api('GET', `/v1/exports/${id}/download`);
  const file = await fetch(redirect.headers.get('location') as string);
  return { seconds, bytes: new Uint8Array(await file.arrayBuffer()) };
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  try {
    const { token, orgId } = await apiToken(stack.url, 'BenchExport');
    const api = apiClient(stack.url, token);
    // Imported once the stack has set the environment (config(), SDK clients).
    const { seedOperations } = await import('../test/support/operation-seed.js');
    const { dynamo } = await import('../lambdas/store/clients.js');
    const { config } = await import('../lambdas/config.js');
    const { ledgerKeys } = await import('../lambdas/store/ledger-items.js');

    const agents = Array.from({ length: AGENTS }, (_, i) => ({ agentId: `bench-${i}-${randomBytes(2).toString('hex')}`, key: newKey() }));
    for (const agent of agents) await registerAgent(api, agent.agentId, [agent.key]);
    const t0 = Date.now() - OPS * 10 - 60_000;
    let seeded = performance.now();
    for (let i = 0; i < OPS; i += SEED_CHUNK) {
      const n = Math.min(SEED_CHUNK, OPS - i);
      await seedOperations(
        orgId,
        Array.from({ length: n }, (_, k) => ({
          agent: agents[(i + k) % AGENTS]!,
          createdAt: t0 + (i + k) * 10,
          subject: { path: `src/module-${(i + k) % 997}.ts` },
          payload: { diff: randomBytes(96).toString('base64') },
        })),
      );
    }
    log(`seeded ${OPS} operations in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    // 4 first: the audit query, before the exports' own reads warm anything.
    const rawQuery = async () => {
      const started = performance.now();
      await dynamo().send(
        new QueryCommand({
          TableName: config().tableName,
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :pk',
          ExpressionAttributeValues: { ':pk': ledgerKeys.orgTimeIndex(orgId, agents[0]!.agentId, 0, '').gsi2pk },
          Limit: 500,
        }),
      );
      return performance.now() - started;
    };
    const page = async (cursor?: string) => {
      const started = performance.now();
      const res = await api('POST', '/v1/audit/query', { limit: 500, ...(cursor ? { cursor } : {}) });
      if (res.status !== 200 || res.body.operations.length !== 500) throw new Error(`audit query: ${res.status} ${JSON.stringify(res.body).slice(0, 300)} after ${(performance.now() - started).toFixed(0)} ms`);
      return { ms: performance.now() - started, cursor: res.body.cursor as string, total: res.body.total_count as number };
    };
    const raw: number[] = [];
    const first: number[] = [];
    const next: number[] = [];
    let total = 0;
    for (let r = 0; r < QUERY_RUNS; r++) {
      raw.push(await rawQuery());
      const one = await page();
      first.push(one.ms);
      total = one.total;
      next.push((await page(one.cursor)).ms);
    }
    if (total !== OPS) throw new Error(`total_count ${total}, expected ${OPS}`);
    log(`audit query measured (first page p50 ${p50(first).toFixed(0)} ms, raw Query p50 ${p50(raw).toFixed(0)} ms)`);

    seeded = 0;
    const json = await withPeakRss(() => exportAndWait(api, { start_time: t0 - 1, end_time: Date.now(), format: 'json' }));
    const jsonReport = verifyExportBundle(json.value.bytes);
    log(`JSON export measured (${json.value.seconds.toFixed(1)} s, peak RSS ${json.peakMb.toFixed(0)} MB, verifies: ${jsonReport.valid})`);
    // The verification above held this process (and so the in-process server) for seconds:
    // let the server close the keep-alive connections that timed out meanwhile before the
    // client reuses one, or the next request dies with "fetch failed".
    await sleep(100);
    const pdf = await withPeakRss(() => exportAndWait(api, { start_time: t0 - 1, end_time: t0 + PDF_OPS * 10, format: 'pdf' }));
    const attachment = (await pdfAttachments(pdf.value.bytes))[0];
    const pdfReport = attachment ? verifyExportBundle(attachment.bytes) : undefined;

    const rows = [
      `JSON export: ${OPS} operations in ${json.value.seconds.toFixed(1)} s (${Math.round(OPS / json.value.seconds)} ops/s), ${(json.value.bytes.byteLength / 2 ** 20).toFixed(0)} MB, ` +
        `peak RSS ${json.peakMb.toFixed(0)} MB (process at start ${json.baseMb.toFixed(0)} MB), verifies: ${jsonReport.valid} (${jsonReport.counts.operations} operations)`,
      `PDF export: ${PDF_OPS} operations in ${pdf.value.seconds.toFixed(1)} s (${Math.round(PDF_OPS / pdf.value.seconds)} ops/s), ${(pdf.value.bytes.byteLength / 2 ** 20).toFixed(1)} MB, ` +
        `peak RSS ${pdf.peakMb.toFixed(0)} MB, embedded bundle verifies: ${pdfReport?.valid} (${pdfReport?.counts.operations} operations)`,
      `audit query, 500 rows of ${OPS}: raw Query p50 ${p50(raw).toFixed(0)} ms; first page (with total_count) p50 ${p50(first).toFixed(0)} ms = ${(p50(first) / p50(raw)).toFixed(2)}x; ` +
        `next page p50 ${p50(next).toFixed(0)} ms = ${(p50(next) / p50(raw)).toFixed(2)}x`,
    ];
    process.stdout.write(`${rows.join('\n')}\n`);
  } finally {
    await stack.stop();
  }
}

const timer = setTimeout(() => {
  log('hard timeout');
  process.exit(2);
}, HARD_TIMEOUT_MS).unref();
main().then(
  () => clearTimeout(timer),
  (error: unknown) => {
    log(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  },
);
