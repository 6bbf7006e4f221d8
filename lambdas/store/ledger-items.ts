/**
 * DynamoDB item layout of agents, keys and the operation ledger (DESIGN.md, Data). Every
 * module reading or writing these items goes through these key builders and types.
 *
 * | item        | pk                                   | sk                 | GSIs |
 * |-------------|--------------------------------------|--------------------|------|
 * | agent       | ORG#<org>                            | AGENT#<agent>      | carries the chain head (seq_no, chain_hash) |
 * | tombstone   | ORG#<org>                            | DELETED#<agent>    | a deleted agent's id, never reused |
 * | agent key   | ORG#<org>#AGENT#<agent>              | KEY#<kid>          | |
 * | operation   | ORG#<org>#OP#<operation_id>          | OP                 | gsi1 chain order, gsi2 org time order, gsi3 unsealed (sparse), ops_by_agent / ops_by_type / ops_by_agent_type time order |
 * | nonce       | ORG#<org>#AGENT#<agent>#NONCE#<nonce> | NONCE             | |
 *
 * The operation is keyed by id (not by agent and seq) so that GET after a submission is a
 * strongly consistent point read and an operation_id is unique per organization by a plain
 * attribute_not_exists condition. agent_id and kid never contain `#` (schemas/agents.ts), and
 * the nonce is the last key segment, so no value can forge another item's key.
 */
import { createHash } from 'node:crypto';
import type { AgentStatus, IntegrationType, KeyStatus } from '../shared/agent-types.js';
import { padMs, padSeq } from './dynamo.js';


/**
 * Shards of the sparse "unsealed" index: spreading organizations over 16 partitions keeps
 * one busy organization from making a hot GSI partition, while the sealer
 * still finds every organization's unsealed operations with 16 queries.
 */
export const UNSEALED_SHARDS = 16;

export function unsealedShard(orgId: string): number {
  return createHash('sha256').update(orgId).digest()[0]! % UNSEALED_SHARDS;
}

export const ledgerKeys = {
  agent: (orgId: string, agentId: string) => ({ pk: `ORG#${orgId}`, sk: `AGENT#${agentId}` }),
  /** Prefix of agent sort keys under the organization partition (list agents). */
  agentPrefix: 'AGENT#',
  tombstone: (orgId: string, agentId: string) => ({ pk: `ORG#${orgId}`, sk: `DELETED#${agentId}` }),
  /** The partition of an agent's keys (and of its assignments, identity-items.ts). */
  agentPartition: (orgId: string, agentId: string) => `ORG#${orgId}#AGENT#${agentId}`,
  key: (orgId: string, agentId: string, kid: string) => ({ pk: `ORG#${orgId}#AGENT#${agentId}`, sk: `KEY#${kid}` }),
  keyPrefix: 'KEY#',
  operation: (orgId: string, operationId: string) => ({ pk: `ORG#${orgId}#OP#${operationId}`, sk: 'OP' }),
  nonce: (orgId: string, agentId: string, nonce: string) => ({ pk: `ORG#${orgId}#AGENT#${agentId}#NONCE#${nonce}`, sk: 'NONCE' }),
  /** gsi1: an agent's operations in seq_no order (chain walks). */
  chainIndex: (orgId: string, agentId: string, seqNo: number) => ({
    gsi1pk: `ORG#${orgId}#AGENT#${agentId}#SEQ`,
    gsi1sk: padSeq(seqNo),
  }),
  /** gsi2: an organization's operations in (created_at, operation_id) order, the epoch leaf order (PROTOCOL.md). */
  orgTimeIndex: (orgId: string, createdAt: number, operationId: string) => ({
    gsi2pk: `ORG#${orgId}#OPS`,
    gsi2sk: `${padMs(createdAt)}#${operationId}`,
  }),
  /**
   * The audit indexes (SPEC.md §4.6 filters): one agent's, one type's, and one agent's of one
   * type operations, each in (created_at, operation_id) order like gsi2. One partition per
   * organization and filter value: see store/operation-index.ts for why no write sharding.
   */
  auditIndexes: (orgId: string, agentId: string, operationType: string, createdAt: number, operationId: string) => {
    const sk = `${padMs(createdAt)}#${operationId}`;
    return {
      oa_pk: `ORG#${orgId}#AGENT#${agentId}#OPS`,
      oa_sk: sk,
      ot_pk: `ORG#${orgId}#TYPE#${operationType}`,
      ot_sk: sk,
      oat_pk: `ORG#${orgId}#AGENT#${agentId}#TYPE#${operationType}`,
      oat_sk: sk,
    };
  },
  /** gsi3 (sparse): operations no epoch has sealed yet; the sealer removes these attributes. */
  unsealedIndex: (orgId: string, createdAt: number, operationId: string) => ({
    gsi3pk: `UNSEALED#${unsealedShard(orgId)}`,
    gsi3sk: `${orgId}#${padMs(createdAt)}#${operationId}`,
  }),
};

/** Object-store keys in the data bucket (DESIGN.md: payloads and receipts in S3). */
export const objectKeys = {
  /**
   * Content-addressed under the operation (the hash is computed from the bytes, never taken
   * from the request): the object is written before the transaction, possibly for a
   * submission that is then rejected, and must never overwrite the payload a committed
   * row points to with other bytes. Every write to one key writes the same bytes.
   */
  payload: (orgId: string, operationId: string, payloadHash: string) => `payloads/${orgId}/${operationId}/${payloadHash}.json`,
  /**
   * Named by the queue message id the receipt carries, so each name has exactly one possible
   * content: two completions racing (receipt-completion.ts) can each write their object while
   * they race for the row's reference, and the loser's object is an orphan, never a
   * conflicting version of the winner's.
   */
  receipt: (orgId: string, operationId: string, queueMessageId: string) => `receipts/${orgId}/${operationId}/${queueMessageId}.json`,
};

export type { AgentStatus, KeyStatus } from '../shared/agent-types.js';

export interface AgentItem {
  agent_id: string;
  org_id: string;
  display_name: string;
  responsible_entity: string | null;
  integration_type: IntegrationType;
  status: AgentStatus;
  created_at: number;
  updated_at: number;
  /** Chain head: seq_no of the last accepted operation (0 before the first). */
  seq_no: number;
  /** Chain head: its chain_hash (GENESIS before the first). */
  chain_hash: string;
  /** operation_id of the head, so verify can read the previous row by a strongly consistent point read. */
  head_operation_id: string | null;
  /**
   * Bumped by every key change in the same transaction; a submission conditions on it, so a
   * key revoked or retired while the submission was in flight can never sign it in.
   */
  keys_version: number;
}

export interface AgentKeyItem {
  kid: string;
  agent_id: string;
  org_id: string;
  public_key: string;
  algorithm: 'ed25519';
  status: KeyStatus;
  created_at: number;
  retired_at: number | null;
}

/** SPEC.md §2.2 plus bookkeeping; toStoredOperation() picks the §2.2 fields for responses. */
export interface OperationItem {
  operation_id: string;
  org_id: string;
  agent_id: string;
  seq_no: number;
  operation_type: string;
  issued_at: number;
  ttl_ms: number;
  nonce: string;
  /** JSON-encoded (RFC 8785 canonical) object, SPEC.md §2.2. */
  subject: string;
  action: string;
  payload_hash: string;
  prev_chain_hash: string;
  chain_hash: string;
  agent_pubkey_kid: string;
  signature: string;
  store_payload_key: string;
  created_at: number;
  /** The record's op_version: part of the signing input, so needed to re-verify. */
  op_version: string;
  /** UUIDv7 made before the transaction; the receipt is rebuilt from the row deterministically. */
  receipt_id: string;
  /** The previous operation of the chain (null for seq_no 1). */
  prev_operation_id: string | null;
  /** The signing key's public half at submission, so the signature stays checkable after the agent is deleted. */
  agent_public_key: string;
  /**
   * Set together, once, after commit (domain/ledger/receipt-completion.ts). Their presence
   * fixes the receipt's content; GET or verify rewrites the object (same bytes) if its
   * write was lost.
   */
  queue_message_id?: string;
  store_receipt_key?: string;
  receipt_created_at?: number;
}

export const TYPE = { agent: 'agent', tombstone: 'agent_tombstone', key: 'agent_key', operation: 'operation', nonce: 'nonce' } as const;
