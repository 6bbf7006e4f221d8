/**
 * `npm run bench` (exports and audit query, docs/API.md §4.6, §4.8): against its own in-memory
 * local stack on 127.0.0.1,
 *
 * 1. seeds BENCH_EXPORT_OPS (100,000) operations over 20 agents straight into the table and
 *    the data bucket (test/support/operation-seed.ts: signed, chained, with signed receipts,
 *    so that the export verifies), spread over the 24 hours before the last minute: an
 *    organization as a day of work leaves it;
 * 2. seals them as the scheduled sealer would (the last window and the grace period stay
 *    open, as in a live deployment) and says how many operations the sealer has not reached;
 * 3. times one 500-row audit query page over the whole organization (first page, with its
 *    total_count, and following pages: the time index's shards merged, then the rows by key)
 *    against a single raw Query of 500 entries of one shard, in the same run;
 * 4. exports all of them as JSON over HTTP, the exports worker running in a process of its
 *    own as its Lambda would (test/support/export-worker-child.ts), and times it until done:
 *    seconds, operations per second and the worker's peak RSS; then verifies the file;
 * 5. exports the oldest BENCH_PDF_OPS (10,000) as PDF, the same way.
 *
 * Targets (issue text): JSON 100k within 60 s and peak RSS under 512 MB; PDF 10k within
 * 60 s; audit page p50 at most 3x the raw Query. Bounded and self-stopping.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { verifyExportBundle } from '@agent-ledger/protocol';
import { pdfAttachments } from '../client/src/verify/pdf-attachment.js';
import { startBenchStack } from './bench-stack.js';
import { apiClient, apiToken, type Api } from '../test/support/http-client.js';
import { newKey, registerAgent } from '../test/support/ledger-fixtures.js';
import { signer } from '../lambdas/runtime/signer.js';

const OPS = Number(process.env.BENCH_EXPORT_OPS ?? 100_000);
const PDF_OPS = Math.min(OPS, Number(process.env.BENCH_PDF_OPS ?? 10_000));
const AGENTS = 20;
const SEED_CHUNK = 5_000;
const QUERY_RUNS = 15;
const HARD_TIMEOUT_MS = 40 * 60_000;
const DAY_MS = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stderr.write(`bench-export: ${line}\n`);
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** One run of the exports worker in a process of its own (its Lambda's 15 minutes); its peak RSS in MB. */
function workerRun(job: { export_id: string; org_id: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/export-worker-child.ts'], {
      env: { ...process.env, EXPORT_JOB: JSON.stringify(job), EXPORT_LAMBDA_SECONDS: '900' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const answer = out.trim().split('\n').at(-1);
      if (code !== 0 || !answer) return reject(new Error(`export worker exited with ${code}: ${out}`));
      resolve((JSON.parse(answer) as { max_rss_kb: number }).max_rss_kb / 1024);
    });
  });
}

async function exportStatus(api: Api, id: string): Promise<{ status: string; error?: string }> {
  const res = await api('GET', `/v1/exports/${id}`);
  if (res.status !== 200) throw new Error(`export ${id}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.export;
}

/** Creates the export, runs the worker until it is done (a run that stops early re-queues: run it again), downloads the file. */
async function exportAndWait(api: Api, orgId: string, body: Record<string, unknown>): Promise<{ seconds: number; bytes: Uint8Array; peakMb: number }> {
  // A long synchronous stretch of this process (verifying the last file) held the in-process
  // server too: let it close the keep-alive connections that timed out meanwhile before the
  // client reuses one, or the request dies with "fetch failed".
  await sleep(100);
  const started = performance.now();
  const created = await api('POST', '/v1/exports', body);
  if (created.status !== 201) throw new Error(`create export: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.export.export_id as string;
  let peakMb = 0;
  for (let run = 0; ; run++) {
    const state = await exportStatus(api, id);
    if (state.status === 'done') break;
    if (state.status === 'failed') throw new Error(`export failed: ${state.error}`);
    if (run === 10) throw new Error('export not done after 10 worker runs');
    peakMb = Math.max(peakMb, await workerRun({ export_id: id, org_id: orgId }));
  }
  const seconds = (performance.now() - started) / 1000;
  const redirect = await api('GET', `/v1/exports/${id}/download`);
  const file = await fetch(redirect.headers.get('location') as string);
  return { seconds, bytes: new Uint8Array(await file.arrayBuffer()), peakMb };
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
    // A day of operations ending a minute ago, evenly spaced.
    const t0 = Date.now() - DAY_MS - 60_000;
    const spacing = DAY_MS / OPS;
    const seeded = performance.now();
    for (let i = 0; i < OPS; i += SEED_CHUNK) {
      const n = Math.min(SEED_CHUNK, OPS - i);
      await seedOperations(
        orgId,
        Array.from({ length: n }, (_, k) => ({
          agent: agents[(i + k) % AGENTS]!,
          createdAt: t0 + Math.floor((i + k) * spacing),
          subject: { path: `src/module-${(i + k) % 997}.ts` },
          payload: { diff: randomBytes(96).toString('base64') },
        })),
      );
    }
    log(`seeded ${OPS} operations in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    const page = async (cursor?: string) => {
      const started = performance.now();
      const res = await api('POST', '/v1/audit/query', { limit: 500, ...(cursor ? { cursor } : {}) });
      if (res.status !== 200 || res.body.operations.length !== 500) throw new Error(`audit query: ${res.status} ${JSON.stringify(res.body).slice(0, 300)} after ${(performance.now() - started).toFixed(0)} ms`);
      return { ms: performance.now() - started, cursor: res.body.cursor as string, total: res.body.total_count as number };
    };
    // The first page before any sealing: what every count cost before epochs kept counts.
    const unsealed: number[] = [];
    for (let r = 0; r < 3; r++) unsealed.push((await page()).ms);

    // Sealed as the scheduled sealer leaves it: the last window and the grace period stay open.
    const sealStarted = performance.now();
    const { sealOrganization } = await import('../lambdas/domain/epochs/seal-organization.js');
    const { sealedUntil } = await import('../lambdas/store/sealer-state.js');
    const { epochMs, epochGraceMs } = config();
    // As the scheduled sealer finds it a minute after the last operation (seeding took longer than that).
    const seal = await sealOrganization(orgId, { now: t0 + DAY_MS + 60_000, epochMs, graceMs: epochGraceMs, settleMs: 0, anchorWanted: false, signer: signer() });
    const sealedEnd = (await sealedUntil(orgId)) ?? 0;
    const open = Math.max(0, Math.ceil((t0 + DAY_MS - sealedEnd) / spacing));
    log(`sealed ${seal.epochs.length} epochs in ${((performance.now() - sealStarted) / 1000).toFixed(1)} s; about ${open} operations after sealed_until stay open`);

    // The audit query first, before the exports' own reads warm anything.
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

    // From here the exports worker runs in processes of its own (exportAndWait).
    stack.queue.close();
    const json = await exportAndWait(api, orgId, { start_time: t0 - 1, end_time: Date.now(), format: 'json' });
    const jsonReport = verifyExportBundle(json.bytes);
    log(`JSON export measured (${json.seconds.toFixed(1)} s, worker peak RSS ${json.peakMb.toFixed(0)} MB, verifies: ${jsonReport.valid})`);
    const pdf = await exportAndWait(api, orgId, { start_time: t0 - 1, end_time: t0 + Math.ceil(PDF_OPS * spacing), format: 'pdf' });
    const attachment = (await pdfAttachments(pdf.bytes))[0];
    const pdfReport = attachment ? verifyExportBundle(attachment.bytes) : undefined;

    const rows = [
      `JSON export: ${OPS} operations in ${json.seconds.toFixed(1)} s (${Math.round(OPS / json.seconds)} ops/s), ${(json.bytes.byteLength / 2 ** 20).toFixed(0)} MB, ` +
        `worker peak RSS ${json.peakMb.toFixed(0)} MB, verifies: ${jsonReport.valid} (${jsonReport.counts.operations} operations)`,
      `PDF export: ${PDF_OPS} operations in ${pdf.seconds.toFixed(1)} s (${Math.round(PDF_OPS / pdf.seconds)} ops/s), ${(pdf.bytes.byteLength / 2 ** 20).toFixed(1)} MB, ` +
        `worker peak RSS ${pdf.peakMb.toFixed(0)} MB, embedded bundle verifies: ${pdfReport?.valid} (${pdfReport?.counts.operations} operations)`,
      `audit query, 500 rows of ${OPS}: raw Query p50 ${p50(raw).toFixed(0)} ms; first page (with total_count) p50 ${p50(first).toFixed(0)} ms = ${(p50(first) / p50(raw)).toFixed(2)}x ` +
        `(before sealing, every match counted from the index: ${p50(unsealed).toFixed(0)} ms = ${(p50(unsealed) / p50(raw)).toFixed(2)}x); ` +
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
