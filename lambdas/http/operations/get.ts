/** GET /v1/operations/:operation_id (SPEC.md §4.5): row, receipt reference, payload. */
import { readOperationWithReceipt } from '../../domain/ledger/read-operation.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.getOperation, async ({ caller, params }) => ({
  body: await readOperationWithReceipt(caller, params.operation_id),
}));
