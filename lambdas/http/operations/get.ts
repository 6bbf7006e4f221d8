/** GET /v1/operations/:operation_id (docs/API.md §4.5): row, receipt reference, payload. */
import { readOperationWithReceipt } from '../../domain/ledger/read-operation.js';
import { operationRoutes } from '../../routes/route-table/operations.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(operationRoutes.getOperation, async ({ caller, params }) => ({
  body: await readOperationWithReceipt(caller, params.operation_id),
}));
