/**
 * Builds and signs an operation record (docs/API.md §2.1, docs/PROTOCOL.md "Operation record"): the
 * caller says what happened; this fills in what an SDK generates (operation_id as UUIDv7,
 * issued_at, nonce, payload_hash, signature). All bytes come from @agent-ledger/protocol.
 */
import { randomBytes, type KeyObject } from 'node:crypto';
import { OP_VERSION, assertRecordDepth, payloadHash, signRecord, uuidv7, type OperationRecord } from '@agent-ledger/protocol/core';

/** Validity window when the caller gives none: one minute (docs/API.md §2.1 ttl_ms). */
export const DEFAULT_TTL_MS = 60_000;

/** What the caller decides about a record; the optional members are generated when absent. */
export interface RecordInput {
  org_id: string;
  agent_id: string;
  agent_pubkey_kid: string;
  /** The chain_hash of the agent's previous accepted record, or GENESIS for its first. */
  prev_chain_hash: string;
  operation_type: string;
  subject: Record<string, unknown>;
  action: Record<string, unknown>;
  payload: OperationRecord['payload'];
  operation_id?: string;
  issued_at?: number;
  ttl_ms?: number;
  nonce?: string;
  payload_hash?: string;
}

/**
 * A signed record ready for POST /v1/operations. Throws NestingTooDeepError (a
 * ProtocolError, code `NESTING_TOO_DEEP`) before signing when subject, action or payload
 * nest deeper than docs/PROTOCOL.md's limit, which the service would refuse.
 *
 * @example
 * const record = signOperation({ org_id, agent_id: 'build-bot', agent_pubkey_kid: 'k1',
 *   prev_chain_hash: GENESIS, operation_type: 'shell.exec', subject: { kind: 'repository', id: 'acme/app' },
 *   action: { verb: 'run', target: 'npm test' }, payload: { exit_code: 0 } }, privateKey);
 */
export function signOperation(input: RecordInput, privateKey: KeyObject): OperationRecord {
  assertRecordDepth({ subject: input.subject, action: input.action, payload: input.payload });
  return signRecord(
    {
      op_version: OP_VERSION,
      operation_id: input.operation_id ?? uuidv7(),
      org_id: input.org_id,
      agent_id: input.agent_id,
      issued_at: input.issued_at ?? Date.now(),
      ttl_ms: input.ttl_ms ?? DEFAULT_TTL_MS,
      nonce: input.nonce ?? randomBytes(16).toString('base64url'),
      operation_type: input.operation_type,
      subject: input.subject,
      action: input.action,
      payload: input.payload,
      payload_hash: input.payload_hash ?? payloadHash(input.payload),
      prev_chain_hash: input.prev_chain_hash,
      agent_pubkey_kid: input.agent_pubkey_kid,
    },
    privateKey,
  );
}
