/**
 * From a stored operation row (docs/API.md §2.2) back to the record the agent signed (§2.1): the
 * row keeps every signed field, subject and action as JSON text. The payload is not in the
 * row (only payload_hash binds it), so the caller supplies it, or null where only the
 * signature, the digest or the chain hash is checked (none of which covers the payload
 * except through payload_hash: docs/PROTOCOL.md).
 */
import type { StoredOperationRow } from './format.js';
import { OP_VERSION, type OperationRecord } from '../ledger/record.js';

/** What of a stored row the record needs. */
export type SignedRowFields = Pick<
  StoredOperationRow,
  'operation_id' | 'org_id' | 'agent_id' | 'issued_at' | 'ttl_ms' | 'nonce' | 'operation_type' | 'subject' | 'action' | 'payload_hash' | 'prev_chain_hash' | 'agent_pubkey_kid' | 'signature'
>;

/**
 * The signed record of `row`, with `payload` (null: not needed for the check at hand).
 *
 * @example
 * verifyRecordSignature(recordOfStoredRow(row), agentPublicKey);
 */
export function recordOfStoredRow(row: SignedRowFields, payload: OperationRecord['payload'] = null, opVersion: string = OP_VERSION): OperationRecord {
  return {
    op_version: opVersion,
    operation_id: row.operation_id,
    org_id: row.org_id,
    agent_id: row.agent_id,
    issued_at: row.issued_at,
    ttl_ms: row.ttl_ms,
    nonce: row.nonce,
    operation_type: row.operation_type,
    subject: JSON.parse(row.subject) as Record<string, unknown>,
    action: JSON.parse(row.action) as Record<string, unknown>,
    payload,
    payload_hash: row.payload_hash,
    prev_chain_hash: row.prev_chain_hash,
    agent_pubkey_kid: row.agent_pubkey_kid,
    signature: row.signature,
  };
}
