/**
 * The one place that loads an operation's evidence (the row, its payload and its receipt),
 * wherever each is kept (docs/STORAGE.md): GET, verify and exports read through it and never
 * build store keys themselves.
 *
 * - Payload: the row's own copy (payload_json) when it was small enough to keep inline,
 *   else the object under store_payload_key; null once erased (docs/PROTOCOL.md: a payload can be
 *   erased while everything still verifies). The text is the canonical bytes as hashed at
 *   submission, so verify re-hashes exactly them.
 * - Receipt: the receipt the row stores (signed before the commit), or, for a row written
 *   before receipts moved into the row, the object under store_receipt_key, returned as
 *   found: verify must judge what is stored, not a fresh copy.
 */
import type { OperationItem } from '../../store/ledger-items.js';
import { getJsonText } from '../../store/objects.js';
import { payloadKeyOf } from './operation-row.js';
import { receiptFromRow } from './receipt-builder.js';

export interface OperationEvidence {
  row: OperationItem;
  /** The canonical payload JSON text; null when erased (or its object is missing). */
  payloadText: string | null;
  /** The stored receipt, unparsed members and all; null when none is stored. */
  receipt: unknown;
}

export async function payloadText(row: OperationItem): Promise<string | null> {
  if (row.payload_erased !== undefined) return null;
  if (row.payload_json !== undefined) return row.payload_json;
  return getJsonText(payloadKeyOf(row));
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
  const [payload, receipt] = await Promise.all([payloadText(row), storedReceipt(row)]);
  return { row, payloadText: payload, receipt };
}
