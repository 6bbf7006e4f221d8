/**
 * GET /v1/exports, GET /v1/exports/:id and its download (docs/API.md §4.8). Tenancy is in the
 * key: every read is in the caller's organization partition, so another organization's
 * export is NOT_FOUND exactly like a missing one.
 */
import { exportsNewestFirst, readExport, type ExportItem } from '../../store/exports.js';
import { presignedDownload } from '../../store/export-objects.js';
import { conflict, LedgerError, notFound } from '../../shared/errors.js';
import type { OrgCaller } from '../auth/caller.js';
import { exportView, queryParamsOf, type ExportView } from './export-view.js';

/** How long a download URL works (docs/API.md §4.8 via S3 presigning). */
const DOWNLOAD_URL_SECONDS = 300;

async function findExport(caller: OrgCaller, exportId: string): Promise<ExportItem> {
  const item = await readExport(caller.orgId, exportId);
  if (!item) throw notFound(`export ${exportId}`);
  return item;
}

const CURSOR_PREFIX = 'x1.';

export async function listExports(caller: OrgCaller, page: { limit: number; cursor?: string | undefined }): Promise<{ exports: ExportView[]; cursor?: string }> {
  let before: string | undefined;
  if (page.cursor !== undefined) {
    const text = Buffer.from(page.cursor, 'base64url').toString('utf8');
    before = text.slice(CURSOR_PREFIX.length);
    if (!text.startsWith(CURSOR_PREFIX) || !/^[0-9a-f-]{36}$/.test(before)) {
      throw new LedgerError('VALIDATION_ERROR', 'query.cursor: not a cursor from a previous page');
    }
  }
  const { items, more } = await exportsNewestFirst(caller.orgId, page.limit, before);
  const last = items.at(-1);
  const exports = items.map(exportView);
  return more && last ? { exports, cursor: Buffer.from(`${CURSOR_PREFIX}${last.export_id}`).toString('base64url') } : { exports };
}

export async function getExport(caller: OrgCaller, exportId: string): Promise<{ export: ExportView; download_url?: string }> {
  const item = await findExport(caller, exportId);
  const downloadable = item.status === 'done' && item.withdrawn === undefined;
  return { export: exportView(item), ...(downloadable ? { download_url: `/v1/exports/${item.export_id}/download` } : {}) };
}

/** The presigned URL of a done export's file. */
export async function exportDownloadUrl(caller: OrgCaller, exportId: string): Promise<string> {
  const item = await findExport(caller, exportId);
  if (item.withdrawn) {
    const w = item.withdrawn;
    throw new LedgerError(
      'EXPORT_WITHDRAWN',
      `export ${exportId} was withdrawn on ${new Date(w.at).toISOString()}: the payload of operation ${w.operation_id}, which it held, was erased (${w.reason}); create the export again, and the new one marks the payload erased`,
    );
  }
  if (item.status !== 'done' || item.store_export_key === null) {
    const why = item.status === 'failed' ? `it failed (${item.error ?? 'no reason recorded'})` : `it is ${item.status}; wait until GET /v1/exports/${exportId} says done`;
    throw conflict(`export ${exportId} cannot be downloaded: ${why}`);
  }
  const { format } = queryParamsOf(item);
  return presignedDownload(item.store_export_key, `export-${item.export_id}.${format}`, DOWNLOAD_URL_SECONDS);
}
