/**
 * The stored operation row (docs/API.md §2.2) and the record it came from. The row keeps every
 * signed member (subject and action as canonical JSON strings, op_version as bookkeeping),
 * so the record minus its payload, and with it the signature, the record digest and the
 * chain hash, can be recomputed from the row alone (docs/PROTOCOL.md, Verify endpoint).
 */
import { chainHash, recordOfStoredRow, type OperationRecord } from '@agent-ledger/protocol';
import { objectKeys, type AgentItem, type AgentKeyItem, type OperationItem } from '../../store/ledger-items.js';
import type { PreparedRecord } from './prepared-record.js';

interface RowContext {
  agent: AgentItem;
  key: AgentKeyItem;
  receiptId: string;
  receivedAt: number;
  /** The operation.accepted event id, made before the commit (the receipt's queue_message_id). */
  queueMessageId: string;
  /** Keep the canonical payload in the row (at most LEDGER_INLINE_PAYLOAD_BYTES). */
  inlinePayload: boolean;
}

const utf8 = new TextDecoder();

/** The row a submission commits: the next seq_no on the head it read, and the new chain hash. */
export function buildRow(prepared: PreparedRecord, context: RowContext): OperationItem {
  const { record } = prepared;
  return {
    operation_id: record.operation_id,
    org_id: record.org_id,
    agent_id: record.agent_id,
    seq_no: context.agent.seq_no + 1,
    operation_type: record.operation_type,
    issued_at: record.issued_at,
    ttl_ms: record.ttl_ms,
    nonce: record.nonce,
    subject: prepared.subjectJson,
    action: prepared.actionJson,
    payload_hash: record.payload_hash,
    prev_chain_hash: record.prev_chain_hash,
    chain_hash: chainHash(record.prev_chain_hash, record),
    agent_pubkey_kid: record.agent_pubkey_kid,
    signature: record.signature,
    created_at: context.receivedAt,
    op_version: record.op_version,
    receipt_id: context.receiptId,
    prev_operation_id: context.agent.head_operation_id,
    agent_public_key: context.key.public_key,
    queue_message_id: context.queueMessageId,
    ...(context.inlinePayload ? { payload_json: utf8.decode(prepared.payloadBytes) } : {}),
  };
}

/** docs/API.md §2.2 store_payload_key: where the payload is kept (objectKeys; docs/STORAGE.md). */
export function payloadKeyOf(row: OperationItem): string {
  return row.store_payload_key ?? objectKeys.payload(row.org_id, row.operation_id, row.payload_hash);
}

/** docs/API.md §2.3 store_receipt_key: the receipt's name in the store (objectKeys; docs/STORAGE.md). */
export function receiptKeyOf(row: OperationItem): string {
  return row.store_receipt_key ?? objectKeys.receipt(row.org_id, row.operation_id, row.queue_message_id);
}

/**
 * The record a row was built from, without its payload (which no signature, digest or chain
 * hash covers except through payload_hash): protocol's recordOfStoredRow with the row's own
 * op_version.
 */
export function rowToRecord(row: OperationItem): OperationRecord {
  return recordOfStoredRow(row, null, row.op_version);
}

/** Exactly the docs/API.md §2.2 fields: no table keys or bookkeeping leak into responses. */
export function storedOperationView(row: OperationItem) {
  return {
    operation_id: row.operation_id,
    org_id: row.org_id,
    agent_id: row.agent_id,
    seq_no: row.seq_no,
    operation_type: row.operation_type,
    issued_at: row.issued_at,
    ttl_ms: row.ttl_ms,
    nonce: row.nonce,
    subject: row.subject,
    action: row.action,
    payload_hash: row.payload_hash,
    prev_chain_hash: row.prev_chain_hash,
    chain_hash: row.chain_hash,
    agent_pubkey_kid: row.agent_pubkey_kid,
    signature: row.signature,
    store_payload_key: payloadKeyOf(row),
    created_at: row.created_at,
  };
}
