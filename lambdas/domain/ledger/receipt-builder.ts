/**
 * The receipt of an operation (SPEC.md §2.3, PROTOCOL.md "Receipt"), built from the stored
 * row alone: every member is fixed once the row holds its queue_message_id, and Ed25519 is
 * deterministic (RFC 8032 §5.1.6), so whoever builds it (the submission, a lazy repair on
 * GET or verify, a retry) produces the same bytes.
 */
import { finishReceipt, RECEIPT_VERSION, receiptHash, receiptSigningInput, type Receipt, type UnsignedReceipt } from '@agent-ledger/protocol';
import type { OperationItem } from '../../store/ledger-items.js';
import type { Signer } from '../ports.js';

export function unsignedReceipt(row: OperationItem, queueMessageId: string): UnsignedReceipt {
  return {
    receipt_version: RECEIPT_VERSION,
    receipt_id: row.receipt_id,
    operation_id: row.operation_id,
    org_id: row.org_id,
    agent_id: row.agent_id,
    // PROTOCOL.md: the stored row's created_at equals server_received_at.
    server_received_at: row.created_at,
    seq_no: row.seq_no,
    chain_hash: row.chain_hash,
    queue_message_id: queueMessageId,
  };
}

export async function signReceipt(signer: Signer, row: OperationItem, queueMessageId: string): Promise<Receipt> {
  const unsigned = unsignedReceipt(row, queueMessageId);
  const [kid, signature] = await Promise.all([signer.kid(), signer.sign(receiptSigningInput(receiptHash(unsigned)))]);
  return finishReceipt(unsigned, kid, signature);
}

/** The receipt's members that restate the row must restate it exactly (verify, receipt check). */
export function receiptMatchesRow(receipt: Receipt, row: OperationItem): boolean {
  if (!row.queue_message_id) return false;
  const expected = unsignedReceipt(row, row.queue_message_id);
  return (Object.keys(expected) as (keyof UnsignedReceipt)[]).every((field) => receipt[field] === expected[field]);
}
