/** POST /v1/exports (docs/API.md §4.8): 201 with the export queued. */
import { createExport } from '../../domain/exports/create-export.js';
import { queue } from '../../runtime/queue.js';
import { exportRoutes } from '../../routes/route-table/exports.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(exportRoutes.createExport, async ({ caller, body }) => ({
  body: { export: await createExport({ queue: queue() }, caller, body) },
}));
