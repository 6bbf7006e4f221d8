/** GET /v1/admin/events (docs/API.md §4.6): newest first, limit 1..100 (default 20). */
import { adminEvents } from '../../domain/orgs/admin-log.js';
import { adminRoutes } from '../../routes/route-table/admin.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(adminRoutes.adminEvents, async ({ caller, query }) => ({
  body: { events: await adminEvents(caller, query.limit) },
}));
