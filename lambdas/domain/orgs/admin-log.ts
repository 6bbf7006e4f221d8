/** GET /v1/admin/events (docs/API.md §4.6, §2.13): the organization's admin log, newest first. */
import type { AdminEvent } from '../../store/admin-events.js';
import { newestAdminEvents } from '../../store/admin-log.js';
import type { OrgCaller } from '../auth/caller.js';

export function adminEvents(caller: OrgCaller, limit: number): Promise<AdminEvent[]> {
  return newestAdminEvents(caller.orgId, limit);
}
