/**
 * POST /v1/exports (docs/API.md §4.8): stores the export `queued` with admin event export.create
 * (one transaction), then puts its job on the exports queue. The range was checked by the
 * route's schema (integers, start before end, at most 366 days); what needs the clock is
 * checked here: the start may not be in the future.
 *
 * An organization may have at most MAX_ACTIVE_EXPORTS exports queued or running (counted in
 * the same transaction, store/exports.ts): more is RATE_LIMITED 429, so that one
 * organization's backlog cannot hold up the exports of every other.
 *
 * If the queue send fails after the item is stored, the export stays queued and the request
 * answers INTERNAL_ERROR; nothing else ever picks it up, so it is failed at once with a reason
 * rather than left queued forever.
 */
import { adminEventPut } from '../../store/admin-events.js';
import { failExport, putNewExport, type ExportItem } from '../../store/exports.js';
import { LedgerError } from '../../shared/errors.js';
import type { OrgCaller } from '../auth/caller.js';
import { uuidv7 } from '../ledger/uuidv7.js';
import type { Queue } from '../ports.js';
import { exportView, type ExportQueryParams, type ExportView } from './export-view.js';
import type { ExportJobMessage } from './job-message.js';

interface CreateExportRequest {
  start_time: number;
  end_time: number;
  format: 'json' | 'pdf';
  agent_id?: string | null | undefined;
  operation_type?: string | null | undefined;
  include_payloads: boolean;
}

/** Queued plus running exports an organization may have at once. */
const MAX_ACTIVE_EXPORTS = 5;

export async function createExport(ports: { queue: Queue }, caller: OrgCaller, request: CreateExportRequest, now = Date.now()): Promise<ExportView> {
  if (request.start_time > now) throw new LedgerError('VALIDATION_ERROR', 'body.start_time: must not be in the future');
  const params: ExportQueryParams = {
    start_time: request.start_time,
    end_time: request.end_time,
    agent_id: request.agent_id ?? null,
    operation_type: request.operation_type ?? null,
    format: request.format,
    include_payloads: request.include_payloads,
  };
  const item: ExportItem = {
    export_id: uuidv7(now),
    org_id: caller.orgId,
    status: 'queued',
    query_params: JSON.stringify(params),
    store_export_key: null,
    created_at: now,
    completed_at: null,
    created_by: caller.userId,
    operations_done: 0,
    operations_total: null,
  };
  const stored = await putNewExport(
    item,
    adminEventPut({ orgId: caller.orgId, actor: caller.userId, action: 'export.create', targetType: 'export', targetId: item.export_id, details: { ...params }, now }),
    MAX_ACTIVE_EXPORTS,
  );
  if (!stored) {
    throw new LedgerError(
      'RATE_LIMITED',
      `the organization already has ${MAX_ACTIVE_EXPORTS} exports queued or running; create another once one of them is done or failed`,
      { headers: { 'retry-after': '30' } },
    );
  }
  const message: ExportJobMessage = { export_id: item.export_id, org_id: item.org_id };
  try {
    await ports.queue.send('exports', { body: message });
  } catch (error) {
    await failExport(item.org_id, item.export_id, null, { reason: 'the export job could not be queued; create the export again', at: Date.now() });
    throw error;
  }
  return exportView(item);
}
