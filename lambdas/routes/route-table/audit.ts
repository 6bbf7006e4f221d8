/** The audit query (docs/API.md §4.6). */
import { AUDITORS } from '../../shared/roles.js';
import { route } from '../route-spec.js';
import { auditQueryBody, auditQueryResponse } from '../schemas/audit.js';

export const auditRoutes = {
  auditQuery: route({
    id: 'AuditQuery',
    method: 'POST',
    path: '/v1/audit/query',
    handler: 'audit/query',
    auth: AUDITORS,
    summary: "Queries the organization's stored operation rows, oldest first (created_at, then operation_id).",
    description:
      'Filters agent_id, operation_type, start_time (inclusive) and end_time (exclusive, on created_at), in any combination; ' +
      'limit 1-500 (default 100). Rows are ordered by created_at, then operation_id, oldest first. total_count counts every match; ' +
      'cursor is present only when more rows follow. Pass it back with the same filters: a cursor of another organization or ' +
      'other filters, or an altered one, is VALIDATION_ERROR. The first page fixes the listing: operations created after it are ' +
      'neither listed nor counted by its later pages, so total_count stays stable while new operations arrive.',
    request: { body: auditQueryBody },
    response: { status: 200, body: auditQueryResponse },
    // cursors: the cursor is sealed with the secrets key (domain/audit/cursor.ts).
    uses: ['table:read', 'cursors'],
    // The first page counts every match (total_count). Sealed history counts from the epochs'
    // counts (domain/audit/count-matches.ts), but epochs sealed before those existed, and an
    // organization the sealer has not reached, count from the index: over 100,000 operations
    // that is about a hundred COUNT requests, more than the default 10 s on a busy table.
    // API Gateway waits 30 s.
    timeoutSeconds: 29,
  }),
};
