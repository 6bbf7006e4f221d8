/** GET /v1/exports/:export_id/download (docs/API.md §4.8): 302 to a presigned S3 URL; S3 serves the file. */
import { exportDownloadUrl } from '../../domain/exports/read-exports.js';
import { exportRoutes } from '../../routes/route-table/exports.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(exportRoutes.downloadExport, async ({ caller, params }) => ({
  status: 302,
  body: '',
  headers: { location: await exportDownloadUrl(caller, params.export_id), 'cache-control': 'no-store' },
}));
