/**
 * Corrupts stored evidence behind the service's back, for tests that show a verifier noticing
 * (PROTOCOL.md "Verify endpoint"; the console's in-browser checks). Every test that alters a
 * stored receipt goes through here, so a change in where receipts live needs one edit.
 * Uses the process's configured table and buckets (the test stack sets them).
 */
import { canonicalize } from '@agent-ledger/protocol';
import { getJsonText, putJsonObject } from '../../lambdas/store/objects.js';
import { readOperation } from '../../lambdas/store/operations.js';

/**
 * Rewrites the stored receipt of an operation with `change` applied (default: a different
 * server_received_at, so receipt_hash no longer recomputes and the signature no longer covers
 * it). Returns the receipt as it now stands.
 */
export async function tamperReceipt(
  orgId: string,
  operationId: string,
  change: (receipt: Record<string, unknown>) => Record<string, unknown> = (r) => ({ ...r, server_received_at: Number(r.server_received_at) + 1 }),
): Promise<Record<string, unknown>> {
  const row = await readOperation(orgId, operationId);
  if (!row?.store_receipt_key) throw new Error(`operation ${operationId} has no stored receipt yet`);
  const text = await getJsonText(row.store_receipt_key);
  if (text === null) throw new Error(`operation ${operationId}: receipt object missing`);
  const tampered = change(JSON.parse(text) as Record<string, unknown>);
  await putJsonObject(row.store_receipt_key, canonicalize(tampered));
  return tampered;
}
