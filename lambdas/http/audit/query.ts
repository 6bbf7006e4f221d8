/** POST /v1/audit/query (docs/API.md §4.6). */
import { queryAudit } from '../../domain/audit/query-operations.js';
import { encryptor } from '../../runtime/encryptor.js';
import { auditRoutes } from '../../routes/route-table/audit.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(auditRoutes.auditQuery, async ({ caller, body }) => ({
  body: await queryAudit({ encryptor: encryptor() }, caller, body),
}));
