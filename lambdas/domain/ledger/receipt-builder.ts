/**
 * The receipt of an operation (docs/API.md §2.3, docs/PROTOCOL.md "Receipt"), built from the row
 * alone: every member is fixed before the commit (receipt_id, server_received_at, seq_no,
 * chain_hash and the queue message id, which is the operation.accepted event's id), so the
 * submission signs it before the transaction and commits the signature with the row
 * (docs/STORAGE.md). A failed or lost commit simply discards it; a committed row always has
 * its receipt.
 */
import { finishReceipt, RECEIPT_VERSION, receiptHash, receiptSigningInput, type Receipt, type UnsignedReceipt } from '@agent-ledger/protocol';
import type { OperationItem } from '../../store/ledger-items.js';
import type { Signer } from '../ports.js';

function unsignedReceipt(row: OperationItem): UnsignedReceipt {
  return {
    receipt_version: RECEIPT_VERSION,
    receipt_id: row.receipt_id,
    operation_id: row.operation_id,
    org_id: row.org_id,
    agent_id: row.agent_id,
    // docs/PROTOCOL.md: the stored row's created_at equals server_received_at.
    server_received_at: row.created_at,
    seq_no: row.seq_no,
    chain_hash: row.chain_hash,
    queue_message_id: row.queue_message_id,
  };
}

export async function signReceipt(signer: Signer, row: OperationItem): Promise<Receipt> {
  const unsigned = unsignedReceipt(row);
  const [kid, signature] = await Promise.all([signer.kid(), signer.sign(receiptSigningInput(receiptHash(unsigned)))]);
  return finishReceipt(unsigned, kid, signature);
}

/** The row with its signed receipt's own members, as committed. */
export function withReceipt(row: OperationItem, receipt: Receipt): OperationItem {
  return { ...row, receipt_hash: receipt.receipt_hash, service_kid: receipt.service_kid, service_signature: receipt.service_signature };
}

/** The receipt a row stores (null for a row written before receipts moved into the row: its receipt is an object). */
export function receiptFromRow(row: OperationItem): Receipt | null {
  if (row.receipt_hash === undefined || row.service_kid === undefined || row.service_signature === undefined) return null;
  return { ...unsignedReceipt(row), receipt_hash: row.receipt_hash, service_kid: row.service_kid, service_signature: row.service_signature };
}

/** The receipt's members that restate the row must restate it exactly (verify, receipt check). */
export function receiptMatchesRow(receipt: Receipt, row: OperationItem): boolean {
  if (!row.queue_message_id) return false;
  const expected = unsignedReceipt(row);
  return (Object.keys(expected) as (keyof UnsignedReceipt)[]).every((field) => receipt[field] === expected[field]);
}
