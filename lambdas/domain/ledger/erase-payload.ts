/**
 * POST /v1/operations/:operation_id/erase-payload (docs/API.md §4.5; issue: a secret leaked
 * into a tool call, or personal data under a deletion request): the payload goes from every
 * copy the service keeps (docs/STORAGE.md "Erasure"): the row's inline copy, the data bucket
 * object with all its versions, and the export files that held it (withdrawn or restarted:
 * domain/exports/withdraw-exports.ts). `payload_hash` stays, so the signature, chain, receipt
 * and Merkle proofs still verify (docs/PROTOCOL.md: the signature covers the payload only
 * through its hash). The row is marked (who, when, why) and the admin log gets
 * `operation.payload_erase`, in one transaction, before anything is deleted: a payload that
 * is missing without the mark is destruction, never erasure (operation-evidence.ts).
 *
 * Idempotent: a second call answers the first mark and writes nothing, except that it
 * destroys the object and reaches the exports again, which finishes an erasure that failed
 * after the commit.
 */
import { adminEventPut } from '../../store/admin-events.js';
import type { PayloadErasure } from '../../store/ledger-items.js';
import { destroyObject } from '../../store/objects.js';
import { markPayloadErased, readOperation } from '../../store/operations.js';
import type { OrgCaller } from '../auth/caller.js';
import { reachExports } from '../exports/withdraw-exports.js';
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
  // After the commit: a payload is never deleted without its mark. A row that kept the payload
  // inline has no object, but one is destroyed all the same: a key no one wrote costs one list.
  await destroyObject(payloadKeyOf(row));
  await reachExports(row, mark, now);
  return { operation_id: row.operation_id, payload_erased: mark };
}
