/** The admin log (docs/API.md §4.6, §6.3). */
import { AUDITORS } from '../../shared/roles.js';
import { route } from '../route-spec.js';
import { adminEventsQuery, adminEventsResponse } from '../schemas/admin.js';

export const adminRoutes = {
  adminEvents: route({
    id: 'ListAdminEvents',
    method: 'GET',
    path: '/v1/admin/events',
    handler: 'admin/events',
    auth: AUDITORS,
    summary: "The organization's admin log, newest first (limit 1..100, default 20).",
    request: { query: adminEventsQuery },
    response: { status: 200, body: adminEventsResponse },
    uses: ['table:read'],
  }),
};
