/** POST /v1/operations/:operation_id/erase-payload (docs/API.md §4.5): an owner erases a payload, proofs intact. */
import { erasePayload } from '../../domain/ledger/erase-payload.js';
import { operationRoutes } from '../../routes/route-table/operations.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(operationRoutes.erasePayload, async ({ caller, params, body }) => ({
  body: await erasePayload(caller, params.operation_id, body.reason),
}));
