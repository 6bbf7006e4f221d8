/** GET /v1/exports/:export_id (docs/API.md §4.8): status, progress, download_url once done. */
import { getExport } from '../../domain/exports/read-exports.js';
import { exportRoutes } from '../../routes/route-table/exports.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(exportRoutes.getExport, async ({ caller, params }) => ({
  body: await getExport(caller, params.export_id),
}));
