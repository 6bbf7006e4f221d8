/**
 * GET /v1/operations/:operation_id (docs/API.md §4.5): the stored row (§2.2), the stored receipt
 * reference (§2.3) and the payload when it is stored. Every committed row has its receipt
 * (signed before the commit, docs/STORAGE.md); `receipt` is null only for a row written by
 * an earlier version whose receipt was never completed. Beyond docs/API.md, for a verifier that
 * trusts nothing the server concludes (the console checks in the browser): the signed receipt
 * as stored (`signed_receipt`, §2.3; null when none is stored or it is not a JSON object) and
 * `previous_operation_id`, the agent's record at seq_no − 1 (null for the first), whose
 * chain_hash this record's prev_chain_hash must equal.
 */
import type { OrgCaller } from '../auth/caller.js';
import { findVisibleOperation } from './find-operation.js';
import { loadEvidence } from './operation-evidence.js';
import { receiptKeyOf, storedOperationView } from './operation-row.js';

type Payload = Record<string, unknown> | string | null;

/** A stored payload that no longer parses is reported as absent here; verify reports it as a failed check. */
function parsePayload(text: string): { payload?: Payload } {
  try {
    return { payload: JSON.parse(text) as Payload };
  } catch {
    return {};
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export async function readOperationWithReceipt(caller: OrgCaller, operationId: string) {
  const found = await findVisibleOperation(caller, operationId);
  const { row, payload, receipt } = await loadEvidence(found);
  return {
    operation: storedOperationView(row),
    receipt:
      receipt === null
        ? null
        : {
            receipt_id: row.receipt_id,
            operation_id: row.operation_id,
            store_receipt_key: receiptKeyOf(row),
            created_at: row.receipt_created_at ?? row.created_at,
          },
    signed_receipt: isObject(receipt) ? receipt : null,
    previous_operation_id: row.prev_operation_id ?? null,
    // Absent once erased (docs/PROTOCOL.md: a payload can be erased while everything still verifies).
    ...(payload.state === 'stored' ? parsePayload(payload.text) : {}),
    ...(payload.state === 'erased' ? { payload_erased: payload.mark } : {}),
  };
}
