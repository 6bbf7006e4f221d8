/** GET /v1/exports (SPEC.md §4.8): newest first. */
import { listExports } from '../../domain/exports/read-exports.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.listExports, async ({ caller, query }) => ({
  body: await listExports(caller, query),
}));
