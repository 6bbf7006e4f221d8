/**
 * One run of an export job (docs/API.md §4.8; the exports worker calls it per queue message).
 *
 * A run takes the export's lease, moves it to `running`, and goes on from the state on the
 * export item: first the JSON bundle (bundle-job.ts, resumable part by part), then, for a
 * PDF export, the report that embeds it (pdf-job.ts). When its time budget ends it saves,
 * gives the lease back and puts a continuation message on the exports queue, so a large
 * export never depends on one Lambda run. A run that crashes keeps its lease until it
 * expires; SQS then delivers its message again (the visibility timeout outlasts the lease)
 * and the next run resumes from the last saved part.
 *
 * Failures that another attempt cannot fix (the data does not make a bundle that verifies,
 * a PDF over its size limit, damaged evidence) end the export `failed` with the reason at
 * once; others are retried, and the export fails after MAX_FAILED_RUNS of them. A failed
 * export's upload is aborted: the file is complete under store_export_key or absent.
 *
 * An erasure of a payload the export may hold flags it while it runs (withdraw-exports.ts),
 * and a flagged export cannot finish: its run destroys what it wrote (the upload, and any file
 * completed already, every version) and starts it over, so the new pass reads the erasure mark.
 */
import { randomUUID } from 'node:crypto';
import { ProtocolError, type ExportHeader } from '@agent-ledger/protocol';
import { abortUpload, exportObjectKeys } from '../../store/export-objects.js';
import { destroyObject } from '../../store/objects.js';
import {
  claimExportRun,
  failExport,
  finishExport,
  readExport,
  recordFailedRun,
  releaseExportRun,
  restartExportRun,
  saveExportRun,
  type ExportItem,
} from '../../store/exports.js';
import { countMatches } from '../audit/count-matches.js';
import { logger } from '../../logger.js';
import { InclusionEvidenceError } from '../epochs/inclusion.js';
import type { Queue, Signer } from '../ports.js';
import { ExportTooLargeError, LeaseLostError, writeBundle, type BundleState } from './bundle-job.js';
import { queryParamsOf } from './export-view.js';
import type { ExportJobMessage } from './job-message.js';
import { writePdf, PDF_MAX_OPERATIONS } from './pdf-job.js';

/** The job's state on the export item (JSON in `job`). */
interface JobState {
  /** `bundle` until the JSON bundle is complete; `pdf` while a PDF export's report is made. */
  phase: 'bundle' | 'pdf';
  bundle: BundleState;
  /** Unix ms the bundle says it was generated at (kept across runs: the header is signed). */
  generated_at: number;
}

export interface ExportRunSettings {
  /** The run works until then (Unix ms), then saves and re-queues. */
  deadline: number;
  /** The lease lasts until then: past the latest moment the run can still be alive. */
  leaseUntil: number;
  partBytes: number;
  pageSize: number;
  now?: () => number;
}

type ExportRunOutcome = 'done' | 'failed' | 'continued' | 'busy' | 'gone';

/** Runs that end in an error before the export is given up as failed. */
const MAX_FAILED_RUNS = 4;

interface ExportRunPorts {
  signer: Signer;
  queue: Queue;
}

function isPermanent(error: unknown): boolean {
  return error instanceof ProtocolError || error instanceof ExportTooLargeError || error instanceof InclusionEvidenceError;
}

function reasonOf(error: unknown): string {
  if (error instanceof ExportTooLargeError || error instanceof InclusionEvidenceError) return error.message;
  if (error instanceof ProtocolError) return `the stored records do not make a bundle that verifies: ${error.message}`;
  return 'the export could not be written after several attempts; create it again';
}

export async function runExport(ports: ExportRunPorts, message: ExportJobMessage, settings: ExportRunSettings): Promise<ExportRunOutcome> {
  const now = settings.now ?? Date.now;
  const { org_id: orgId, export_id: exportId } = message;
  const runId = randomUUID();
  if (!(await claimExportRun(orgId, exportId, runId, now(), settings.leaseUntil))) {
    const item = await readExport(orgId, exportId);
    // Over, or another run holds it (that run re-queues, or its message comes back if it dies).
    return item === undefined || item.status === 'done' || item.status === 'failed' ? 'gone' : 'busy';
  }
  const item = (await readExport(orgId, exportId)) as ExportItem;
  const job: JobState = item.job ? (JSON.parse(item.job) as JobState) : { phase: 'bundle', bundle: { checkpoint: null, upload: null, key_copies: {} }, generated_at: now() };
  try {
    const outcome = await work(ports, item, job, runId, settings, now);
    if (outcome === 'done') return 'done';
    if (outcome === 'restart') {
      if (!(await restart(item, job, runId))) return 'busy';
    } else if (!(await releaseExportRun(orgId, exportId, runId))) {
      return 'busy';
    }
    await ports.queue.send('exports', { body: message });
    return 'continued';
  } catch (error) {
    if (error instanceof LeaseLostError) return 'busy';
    const failedRuns = (item.failed_runs ?? 0) + 1;
    if (!isPermanent(error) && failedRuns < MAX_FAILED_RUNS) {
      await recordFailedRun(orgId, exportId, runId);
      throw error;
    }
    logger.error('export failed', { export_id: exportId, error: error instanceof Error ? error : String(error) });
    const upload = (item.job ? (JSON.parse(item.job) as JobState) : job).bundle.upload;
    if (upload) await abortUpload(upload.key, upload.upload_id);
    await failExport(orgId, exportId, runId, { reason: reasonOf(error), at: now() });
    return 'failed';
  }
}

/**
 * Destroys everything the export wrote (its open upload, every version of any completed file)
 * and sets it back to the start, the lease given back. False when the run lost its lease.
 */
async function restart(item: ExportItem, job: JobState, runId: string): Promise<boolean> {
  const { org_id: orgId, export_id: exportId } = item;
  // The state as last saved: this run's saves moved the upload on since `job` was read.
  const saved = (await readExport(orgId, exportId))?.job;
  const upload = (saved ? (JSON.parse(saved) as JobState) : job).bundle.upload;
  if (upload) await abortUpload(upload.key, upload.upload_id);
  await Promise.all(exportObjectKeys.all(orgId, exportId, queryParamsOf(item).format).map(destroyObject));
  logger.info('export restarted: a payload it may hold was erased', { export_id: exportId });
  return restartExportRun(orgId, exportId, runId);
}

/** After a finish that did not commit: `restart` when an erasure flagged the export and the run still holds it. */
async function afterRefusedFinish(item: ExportItem, runId: string): Promise<'restart' | 'continued'> {
  const current = await readExport(item.org_id, item.export_id);
  return current?.lease_id === runId && current.restart_for_erasure !== undefined ? 'restart' : 'continued';
}

async function work(ports: ExportRunPorts, item: ExportItem, job: JobState, runId: string, settings: ExportRunSettings, now: () => number): Promise<'done' | 'continued' | 'restart'> {
  const params = queryParamsOf(item);
  const { org_id: orgId, export_id: exportId } = item;
  const header: ExportHeader = {
    export_id: exportId,
    org_id: orgId,
    format: params.format,
    include_payloads: params.include_payloads,
    generated_at: job.generated_at,
    query: { start_time: params.start_time, end_time: params.end_time, agent_id: params.agent_id, operation_type: params.operation_type },
  };
  const fileKey = exportObjectKeys.file(orgId, exportId, params.format);
  const bundleKey = params.format === 'json' ? fileKey : exportObjectKeys.bundle(orgId, exportId);
  const save = (state: JobState, done: number, total?: number | null) =>
    saveExportRun(orgId, exportId, runId, { job: JSON.stringify(state), operationsDone: done, operationsTotal: total, leaseUntil: settings.leaseUntil });

  if (job.phase === 'bundle') {
    // The total for progress, counted beside the writing; kept once known.
    const counting = item.operations_total === null ? countTotal(orgId, header) : Promise.resolve(item.operations_total);
    let total: number | null = null;
    void counting.then((n) => (total = n), () => undefined);
    const outcome = await writeBundle({
      ports,
      header,
      state: job.bundle,
      key: bundleKey,
      partBytes: settings.partBytes,
      pageSize: settings.pageSize,
      deadline: settings.deadline,
      now,
      ...(params.format === 'pdf' ? { maxOperations: PDF_MAX_OPERATIONS } : {}),
      save: (bundle, done) => save({ ...job, bundle }, done, total ?? undefined),
    });
    if (!outcome.done) return 'continued';
    job.phase = 'pdf';
    if (params.format === 'json') {
      return (await finishExport(orgId, exportId, runId, { key: fileKey, at: now(), operations: outcome.operations })) ? 'done' : afterRefusedFinish(item, runId);
    }
    if (!(await save(job, outcome.operations, outcome.operations))) throw new LeaseLostError();
  }
  const operations = await writePdf({ orgId, bundleKey, fileKey, partBytes: settings.partBytes, signer: ports.signer });
  if (await finishExport(orgId, exportId, runId, { key: fileKey, at: now(), operations })) return 'done';
  if ((await afterRefusedFinish(item, runId)) === 'restart') return 'restart';
  throw new LeaseLostError();
}

/** How many operations the export covers (the same count as the audit query's total_count). */
function countTotal(orgId: string, header: ExportHeader): Promise<number> {
  return countMatches(orgId, {
    agentId: header.query.agent_id ?? undefined,
    operationType: header.query.operation_type ?? undefined,
    startTime: header.query.start_time,
    endTime: header.query.end_time,
  });
}
