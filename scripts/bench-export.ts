/**
 * `npm run bench` (exports, docs/API.md §4.8; the audit query is bench-audit.ts): against its own in-memory
 * local stack on 127.0.0.1,
 *
 * 1. seeds BENCH_EXPORT_OPS (100,000) operations over 20 agents straight into the table and
 *    the data bucket (test/support/operation-seed.ts: signed, chained, with signed receipts,
 *    so that the export verifies), spread over the 24 hours before the last minute: an
 *    organization as a day of work leaves it;
 * 2. seals them as the scheduled sealer would (the last window and the grace period stay
 *    open, as in a live deployment) and says how many operations the sealer has not reached;
 * 3. exports all of them as JSON over HTTP, the exports worker running in a process of its
 *    own as its Lambda would (test/support/export-worker-child.ts), and times it until done:
 *    seconds, operations per second and the worker's peak RSS; then verifies the file;
 * 4. exports the oldest BENCH_PDF_OPS (10,000) as PDF, the same way;
 * 5. prints each peak RSS against its baseline from the same run: the worker's peak for an
 *    export of no operations.
 *
 * Targets: JSON 100k within 60 s and peak RSS under 512 MB; PDF 10k within 60 s and under
 * 512 MB (docs/EXPORT.md "Memory"). Bounded and self-stopping.
 */
import { spawn } from 'node:child_process';
import { verifyExportBundle } from '@agent-ledger/protocol';
import { pdfAttachments } from '../client/src/verify/pdf-attachment.js';
import { runBench } from './bench-run.js';
import { startBenchStack } from './bench-stack.js';
import { apiClient, apiToken, type Api } from '../test/support/http-client.js';

const OPS = Number(process.env.BENCH_EXPORT_OPS ?? 100_000);
const PDF_OPS = Math.min(OPS, Number(process.env.BENCH_PDF_OPS ?? 10_000));
const HARD_TIMEOUT_MS = 40 * 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stderr.write(`bench-export: ${line}\n`);

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
    const { seedBenchDay, DAY_MS } = await import('./bench-day.js');
    const { config } = await import('../lambdas/config.js');

    const { t0, spacing } = await seedBenchDay(api, orgId, OPS, { log });

    // Sealed as the scheduled sealer leaves it: the last window and the grace period stay open.
    const sealStarted = performance.now();
    const { sealOrganization } = await import('../lambdas/domain/epochs/seal-organization.js');
    const { sealedUntil } = await import('../lambdas/store/sealer-state.js');
    // After the stack has set POWERTOOLS_METRICS_DISABLED (local/env.ts): imported before it, the
    // metrics module printed a line to stdout per seeded receipt, 100,000 of them.
    const { signer } = await import('../lambdas/runtime/signer.js');
    const { epochMs, epochGraceMs } = config();
    // As the scheduled sealer finds it a minute after the last operation (seeding took longer than that).
    const seal = await sealOrganization(orgId, { now: t0 + DAY_MS + 60_000, epochMs, graceMs: epochGraceMs, settleMs: 0, anchorWanted: false, signer: signer() });
    const sealedEnd = (await sealedUntil(orgId)) ?? 0;
    const open = Math.max(0, Math.ceil((t0 + DAY_MS - sealedEnd) / spacing));
    log(`sealed ${seal.epochs.length} epochs in ${((performance.now() - sealStarted) / 1000).toFixed(1)} s; about ${open} operations after sealed_until stay open`);

    // From here the exports worker runs in processes of its own (exportAndWait).
    stack.queue.close();
    // The baseline: the same worker process exporting a range with no operations (its code,
    // the SDK clients and this bench's TypeScript loader, none of it the export's doing).
    const empty = await exportAndWait(api, orgId, { start_time: t0 - 3_600_000, end_time: t0 - 1_800_000, format: 'pdf' });
    log(`baseline: an export of no operations, worker peak RSS ${empty.peakMb.toFixed(0)} MB`);
    const json = await exportAndWait(api, orgId, { start_time: t0 - 1, end_time: Date.now(), format: 'json' });
    const jsonReport = verifyExportBundle(json.bytes);
    log(`JSON export measured (${json.seconds.toFixed(1)} s, worker peak RSS ${json.peakMb.toFixed(0)} MB, verifies: ${jsonReport.valid})`);
    const pdf = await exportAndWait(api, orgId, { start_time: t0 - 1, end_time: t0 + Math.ceil(PDF_OPS * spacing), format: 'pdf' });
    const attachment = (await pdfAttachments(pdf.bytes))[0];
    const pdfReport = attachment ? verifyExportBundle(attachment.bytes) : undefined;

    const overBaseline = (peakMb: number) => `${peakMb.toFixed(0)} MB (${(peakMb / empty.peakMb).toFixed(2)}x the baseline's ${empty.peakMb.toFixed(0)} MB, +${(peakMb - empty.peakMb).toFixed(0)} MB; target under 512 MB)`;
    const rows = [
      `JSON export: ${OPS} operations in ${json.seconds.toFixed(1)} s (${Math.round(OPS / json.seconds)} ops/s), ${(json.bytes.byteLength / 2 ** 20).toFixed(0)} MB, ` +
        `worker peak RSS ${overBaseline(json.peakMb)}, verifies: ${jsonReport.valid} (${jsonReport.counts.operations} operations)`,
      `PDF export: ${PDF_OPS} operations in ${pdf.seconds.toFixed(1)} s (${Math.round(PDF_OPS / pdf.seconds)} ops/s), ${(pdf.bytes.byteLength / 2 ** 20).toFixed(1)} MB, ` +
        `worker peak RSS ${overBaseline(pdf.peakMb)}, embedded bundle verifies: ${pdfReport?.valid} (${pdfReport?.counts.operations} operations)`,
    ];
    process.stdout.write(`${rows.join('\n')}\n`);
  } finally {
    await stack.stop();
  }
}

runBench(main, HARD_TIMEOUT_MS, log);
