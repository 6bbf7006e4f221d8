/**
 * The one place that loads an operation's evidence (the row, its payload and its receipt),
 * wherever each is kept (docs/STORAGE.md): GET, verify and exports read through it and never
 * build store keys themselves.
 *
 * - Payload: the row's own copy (payload_json) when it was small enough to keep inline,
 *   else the object under store_payload_key; erased once an owner erased it (docs/PROTOCOL.md:
 *   a payload can be erased while everything still verifies). The text is the canonical bytes
 *   as hashed at submission, so verify re-hashes exactly them. A payload that is neither
 *   stored nor marked erased is `missing`: the service never deletes one without the mark
 *   (the mark commits first), so its copy was destroyed in storage, and every verifier fails it.
 * - Receipt: the receipt the row stores (signed before the commit), or, for a row written
 *   before receipts moved into the row, the object under store_receipt_key, returned as
 *   found: verify must judge what is stored, not a fresh copy.
 */
import type { OperationItem, PayloadErasure } from '../../store/ledger-items.js';
import { getJsonText } from '../../store/objects.js';
import { readOperation } from '../../store/operations.js';
import { payloadKeyOf } from './operation-row.js';
import { receiptFromRow } from './receipt-builder.js';

/** What storage holds of an operation's payload. */
export type StoredPayload = { state: 'stored'; text: string } | { state: 'erased'; mark: PayloadErasure } | { state: 'missing' };

interface OperationEvidence {
  row: OperationItem;
  payload: StoredPayload;
  /** The stored receipt, unparsed members and all; null when none is stored. */
  receipt: unknown;
}

export async function storedPayload(row: OperationItem): Promise<StoredPayload> {
  if (row.payload_erased !== undefined) return { state: 'erased', mark: row.payload_erased };
  if (row.payload_json !== undefined) return { state: 'stored', text: row.payload_json };
  const text = await getJsonText(payloadKeyOf(row));
  if (text !== null) return { state: 'stored', text };
  // An erasure that committed after `row` was read deletes the object after its mark: read the mark again.
  const mark = (await readOperation(row.org_id, row.operation_id))?.payload_erased;
  return mark === undefined ? { state: 'missing' } : { state: 'erased', mark };
}

export async function storedReceipt(row: OperationItem): Promise<unknown> {
  const inline = receiptFromRow(row);
  if (inline) return inline;
  if (!row.store_receipt_key) return null;
  const text = await getJsonText(row.store_receipt_key);
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export async function loadEvidence(row: OperationItem): Promise<OperationEvidence> {
  const [payload, receipt] = await Promise.all([storedPayload(row), storedReceipt(row)]);
  return { row, payload, receipt };
}
