/**
 * `agent-ledger export --from T --to T --format json|pdf [--out FILE] [--agent ID] [--type T]`:
 * creates an export of the organization's records (POST /v1/exports), follows its progress
 * (a bar on a terminal), and downloads the file once it is done (docs/API.md §4.8).
 */
import { renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LedgerApiError, LedgerTransportError } from '../../sdk/errors.js';
import { LedgerClient } from '../../sdk/client.js';
import type { ExportJob } from '../../sdk/exports.js';
import { sleep } from '../../sdk/retry.js';
import { readCredentials } from '../../local/credentials.js';
import { oneOf, parseOptions, required } from '../args.js';
import { CliError, usageError } from '../errors.js';

/** How long to wait for an export before giving up (the job keeps running on the service). */
const MAX_WAIT_MS = 60 * 60 * 1000;

export async function exportCommand(args: string[]): Promise<number> {
  const { values } = parseOptions(args, {
    from: { type: 'string' },
    to: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
    agent: { type: 'string' },
    type: { type: 'string' },
  });
  const start = parseTime(required(values.from, '--from'), '--from');
  const end = parseTime(required(values.to, '--to'), '--to');
  if (end <= start) throw usageError('--to must be after --from');
  const format = oneOf(values.format, '--format', ['json', 'pdf'] as const, 'json');
  const { url, token } = readCredentials();
  const client = new LedgerClient({ url, token });
  const progress = process.stderr.isTTY ? bar : line;

  try {
    let { export: job } = await client.createExport({
      start_time: start,
      end_time: end,
      format,
      ...(values.agent ? { agent_id: values.agent } : {}),
      ...(values.type ? { operation_type: values.type } : {}),
    });
    process.stderr.write(`export ${job.export_id} created (${format}, ${new Date(start).toISOString()} to ${new Date(end).toISOString()})\n`);
    const deadline = Date.now() + MAX_WAIT_MS;
    for (let wait = 250; job.status !== 'done'; wait = Math.min(wait * 2, 2000)) {
      if (job.status === 'failed') throw new CliError(`export ${job.export_id} failed${job.error ? `: ${job.error}` : ''}`);
      if (Date.now() > deadline) throw new CliError(`export ${job.export_id} is still ${job.status}; check later with GET /v1/exports/${job.export_id}`);
      progress(job);
      await sleep(wait);
      ({ export: job } = await client.getExport(job.export_id));
    }
    progress(job);
    if (process.stderr.isTTY) process.stderr.write('\n');

    const out = resolve(values.out ?? `export-${job.export_id}.${format}`);
    const partial = join(dirname(out), `.${job.export_id}.${process.pid}.part`);
    try {
      const bytes = await client.downloadExport(job.export_id, partial);
      renameSync(partial, out);
      process.stderr.write(`downloaded ${bytes} bytes to ${out}\n`);
    } finally {
      rmSync(partial, { force: true });
    }
    process.stdout.write(`${out}\n`);
    return 0;
  } catch (error) {
    if (error instanceof LedgerApiError || error instanceof LedgerTransportError) throw new CliError(`export failed: ${error.message}`);
    throw error;
  }
}

/** Unix ms, or an ISO 8601 date / date-time. */
function parseTime(value: string, option: string): number {
  if (/^\d+$/.test(value)) return Number(value);
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw usageError(`${option} must be Unix milliseconds or an ISO 8601 date such as 2026-01-31 or 2026-01-31T12:00:00Z (got "${value}")`);
  return ms;
}

function counts(job: ExportJob): { done: number; total: number } | undefined {
  const p = job.progress;
  // operations_total is null until the service has counted the matching operations.
  return p && p.operations_total !== null ? { done: p.operations_done, total: p.operations_total } : undefined;
}

/** A redrawn bar on a terminal. */
function bar(job: ExportJob): void {
  const c = counts(job);
  const width = 30;
  const ratio = job.status === 'done' ? 1 : c && c.total > 0 ? Math.min(1, c.done / c.total) : 0;
  const filled = Math.round(ratio * width);
  const text = c ? `${c.done}/${c.total} operations` : job.status;
  process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}% ${text}\u001b[K`);
}

/** One line per change when stderr is not a terminal (logs, CI). */
let lastLine = '';
function line(job: ExportJob): void {
  const c = counts(job);
  const text = `export ${job.export_id}: ${job.status}${c ? ` ${c.done}/${c.total} operations` : ''}`;
  if (text !== lastLine) process.stderr.write(`${text}\n`);
  lastLine = text;
}
