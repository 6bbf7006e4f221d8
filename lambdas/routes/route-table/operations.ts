/**
 * Operation endpoints (docs/API.md §4.5): submission, read, verify. Submission signs the receipt
 * before it commits and writes nothing else afterwards (the operation.accepted event leaves
 * through the table's stream, lambdas/workers/forward-events.ts), so it needs no queue; GET
 * and verify only read.
 */
import { AGENT_WRITERS, ALL_ROLES } from '../../shared/roles.js';
import { route } from '../route-spec.js';
import { erasePayloadBody, erasePayloadResponse, getOperationResponse, operationParams, operationRecordSchema, submitResponse, verifyResponse } from '../schemas/operations.js';


export const operationRoutes = {
  submitOperation: route({
    id: 'SubmitOperation',
    method: 'POST',
    path: '/v1/operations',
    handler: 'operations/submit',
    auth: AGENT_WRITERS,
    summary: 'Submits a signed operation record (docs/PROTOCOL.md check order); answers with the signed receipt.',
    request: { body: operationRecordSchema },
    response: { status: 200, body: submitResponse },
    uses: ['table:write', 'data:write', 'signer'],
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
    uses: ['table:read', 'data:read'],
  }),
  verifyOperation: route({
    id: 'VerifyOperation',
    method: 'POST',
    path: '/v1/operations/{operation_id}/verify',
    handler: 'operations/verify',
    auth: ALL_ROLES,
    summary: 'Recomputes the signature, chain and receipt checks from stored data (docs/PROTOCOL.md, Verify endpoint).',
    request: { params: operationParams },
    response: { status: 200, body: verifyResponse },
    // signer:public-key: the JWKS the receipt check verifies against (it signs nothing); anchors:read: the Merkle check reads the epoch's leaf list.
    uses: ['table:read', 'data:read', 'signer:public-key', 'anchors:read'],
  }),
  erasePayload: route({
    id: 'ErasePayload',
    method: 'POST',
    path: '/v1/operations/{operation_id}/erase-payload',
    handler: 'operations/erase-payload',
    auth: ['org_owner'],
    summary:
      "Erases the operation's stored payload (inline copy and object), keeps payload_hash so every proof still verifies, marks the operation and records operation.payload_erase in the admin log. Idempotent: a second call answers the first mark.",
    request: { params: operationParams, body: erasePayloadBody },
    response: { status: 200, body: erasePayloadResponse },
    uses: ['table:write', 'data:erase'],
  }),
};
