/** POST /v1/operations/:operation_id/verify (docs/API.md §4.5, docs/PROTOCOL.md "Verify endpoint"). */
import { verifyOperation } from '../../domain/ledger/verify-operation.js';
import { signer } from '../../runtime/signer.js';
import { operationRoutes } from '../../routes/route-table/operations.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(operationRoutes.verifyOperation, async ({ caller, params }) => ({
  body: await verifyOperation({ signer: signer() }, caller, params.operation_id),
}));
