/**
 * GET /v1/operations/:operation_id (SPEC.md §4.5): the stored row (§2.2), the stored receipt
 * reference (§2.3) and the payload when it was stored. Beyond SPEC.md, for a verifier that
 * trusts nothing the server concludes (the console checks in the browser): the signed receipt
 * as stored (`signed_receipt`, §2.3; null when the stored object is not JSON) and
 * `previous_operation_id`, the agent's record at seq_no − 1 (null for the first), whose
 * chain_hash this record's prev_chain_hash must equal. A receipt that a failure after commit
 * left unwritten is completed here. If that completion fails too (the
 * signer or the queue still down), the operation is shown all the same, with `receipt: null`:
 * it is committed, and hiding it would tell the client to resubmit a record that can only be
 * refused as a replay. A later GET or verify completes the receipt.
 */
import { getJsonText } from '../../store/objects.js';
import type { OperationItem } from '../../store/ledger-items.js';
import { logger } from '../../logger.js';
import type { OrgCaller } from '../auth/caller.js';
import { findVisibleOperation } from './find-operation.js';
import { storedOperationView } from './operation-row.js';
import { loadReceipt, type ReceiptPorts } from './receipt-completion.js';

type Payload = Record<string, unknown> | string | null;

async function withReceipt(ports: ReceiptPorts, row: OperationItem): Promise<{ row: OperationItem; stored: unknown } | null> {
  try {
    return await loadReceipt(ports, row);
  } catch (error) {
    logger.error('receipt completion failed; answering without a receipt reference', {
      operation_id: row.operation_id,
      error: error instanceof Error ? error : String(error),
    });
    return null;
  }
}

/** A stored object that no longer parses is reported as absent here; verify reports it as a failed check. */
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

export async function readOperationWithReceipt(ports: ReceiptPorts, caller: OrgCaller, operationId: string) {
  const found = await findVisibleOperation(caller, operationId);
  const [loaded, payloadText] = await Promise.all([withReceipt(ports, found), getJsonText(found.store_payload_key)]);
  const completed = loaded?.row ?? null;
  const row = completed ?? found;
  return {
    operation: storedOperationView(row),
    receipt:
      completed?.store_receipt_key && completed.receipt_created_at !== undefined
        ? {
            receipt_id: completed.receipt_id,
            operation_id: completed.operation_id,
            store_receipt_key: completed.store_receipt_key,
            created_at: completed.receipt_created_at,
          }
        : null,
    signed_receipt: loaded !== null && isObject(loaded.stored) ? loaded.stored : null,
    previous_operation_id: row.prev_operation_id ?? null,
    // Absent once erased (PROTOCOL.md: a payload can be erased while everything still verifies).
    ...(payloadText === null ? {} : parsePayload(payloadText)),
  };
}
