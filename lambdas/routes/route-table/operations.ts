/**
 * Operation endpoints (SPEC.md §4.5): submission, read, verify. GET and verify may complete a
 * receipt that a failure after commit left unwritten, so they hold the
 * same write grants as submission.
 */
import { AGENT_WRITERS, ALL_ROLES } from '../../shared/roles.js';
import { route } from '../route-spec.js';
import { getOperationResponse, operationParams, operationRecordSchema, submitResponse, verifyResponse } from '../schemas/operations.js';

const completesReceipts = ['table:write', 'data:write', 'signer', 'queue:events'] as const;

export const operationRoutes = {
  submitOperation: route({
    id: 'SubmitOperation',
    method: 'POST',
    path: '/v1/operations',
    handler: 'operations/submit',
    auth: AGENT_WRITERS,
    summary: 'Submits a signed operation record (PROTOCOL.md check order); answers with the signed receipt.',
    request: { body: operationRecordSchema },
    response: { status: 200, body: submitResponse },
    uses: completesReceipts,
  }),
  getOperation: route({
    id: 'GetOperation',
    method: 'GET',
    path: '/v1/operations/{operation_id}',
    handler: 'operations/get',
    auth: ALL_ROLES,
    summary: 'The stored row, its receipt reference and the payload.',
    request: { params: operationParams },
    response: { status: 200, body: getOperationResponse },
    uses: completesReceipts,
  }),
  verifyOperation: route({
    id: 'VerifyOperation',
    method: 'POST',
    path: '/v1/operations/{operation_id}/verify',
    handler: 'operations/verify',
    auth: ALL_ROLES,
    summary: 'Recomputes the signature, chain and receipt checks from stored data (PROTOCOL.md, Verify endpoint).',
    request: { params: operationParams },
    response: { status: 200, body: verifyResponse },
    // anchors:read: the Merkle check reads the epoch's leaf list.
    uses: [...completesReceipts, 'anchors:read'],
  }),
};
