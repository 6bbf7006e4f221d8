/**
 * POST /v1/operations/:operation_id/erase-payload (docs/API.md §4.5; issue: a secret leaked
 * into a tool call, or personal data under a deletion request): the stored payload goes (the
 * row's inline copy and the data bucket object), `payload_hash` stays, so the signature,
 * chain, receipt and Merkle proofs still verify (docs/PROTOCOL.md: the signature covers the
 * payload only through its hash). The row is marked (who, when, why) and the admin log gets
 * `operation.payload_erase`, in one transaction.
 *
 * Idempotent: a second call answers the first mark and writes nothing, except that it deletes
 * the object again, which finishes an erasure whose object delete failed after the commit.
 */
import { adminEventPut } from '../../store/admin-events.js';
import type { PayloadErasure } from '../../store/ledger-items.js';
import { deleteDataObject } from '../../store/objects.js';
import { markPayloadErased, readOperation } from '../../store/operations.js';
import type { OrgCaller } from '../auth/caller.js';
import { findVisibleOperation } from './find-operation.js';
import { payloadKeyOf } from './operation-row.js';

export async function erasePayload(caller: OrgCaller, operationId: string, reason: string, now = Date.now()): Promise<{ operation_id: string; payload_erased: PayloadErasure }> {
  const row = await findVisibleOperation(caller, operationId);
  let mark = row.payload_erased;
  if (mark === undefined) {
    const wanted: PayloadErasure = { by: caller.userId, at: now, reason };
    const event = adminEventPut({
      orgId: caller.orgId,
      actor: caller.userId,
      action: 'operation.payload_erase',
      targetType: 'operation',
      targetId: row.operation_id,
      details: { reason, agent_id: row.agent_id, payload_hash: row.payload_hash },
      now,
    });
    // A concurrent call may have marked it first: then its mark is the answer.
    mark = (await markPayloadErased(caller.orgId, row.operation_id, wanted, event)) ? wanted : (await readOperation(caller.orgId, row.operation_id))?.payload_erased;
    if (mark === undefined) throw new Error(`operation ${row.operation_id}: erasure neither committed nor found`);
  }
  // After the commit: a row never claims an erasure whose payload can still be read through it.
  if (row.payload_json === undefined) await deleteDataObject(payloadKeyOf(row));
  return { operation_id: row.operation_id, payload_erased: mark };
}
