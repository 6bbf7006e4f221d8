/** POST /v1/audit/query (SPEC.md §4.6). */
import { queryAudit } from '../../domain/audit/query-operations.js';
import { encryptor } from '../../runtime/encryptor.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.auditQuery, async ({ caller, body }) => ({
  body: await queryAudit({ encryptor: encryptor() }, caller, body),
}));
