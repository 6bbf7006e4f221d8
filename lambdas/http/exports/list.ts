/** GET /v1/exports (docs/API.md §4.8): newest first. */
import { listExports } from '../../domain/exports/read-exports.js';
import { exportRoutes } from '../../routes/route-table/exports.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(exportRoutes.listExports, async ({ caller, query }) => ({
  body: await listExports(caller, query),
}));
