/**
 * DynamoDB item layout of agents, keys and the operation ledger (docs/ARCHITECTURE.md, Data). Every
 * module reading or writing these items goes through these key builders and types.
 *
 * | item        | pk                                   | sk                 | GSIs |
 * |-------------|--------------------------------------|--------------------|------|
 * | agent       | ORG#<org>                            | AGENT#<agent>      | carries the chain head (seq_no, chain_hash) and the sealing fence; gsi3 last active window |
 * | tombstone   | ORG#<org>                            | DELETED#<agent>    | a deleted agent's id, never reused |
 * | agent key   | ORG#<org>#AGENT#<agent>              | KEY#<kid>          | |
 * | operation   | ORG#<org>#OP#<operation_id>          | OP                 | gsi2 org time order (sharded by agent), ops_by_agent / ops_by_type / ops_by_agent_type time order |
 * | nonce       | ORG#<org>#AGENT#<agent>#NONCE#<nonce> | NONCE             | |
 * | attempt     | ORG#<org>#AGENT#<agent>#ATTEMPTS     | AT#<received_at>#<operation_id> | a refused submission kept (store/attempts.ts); TTL expires_at_s |
 * | attempt guard | ORG#<org>#AGENT#<agent>#ATTEMPTS   | OP#<operation_id>  | keeps one attempt per operation_id; TTL expires_at_s |
 *
 * The operation is keyed by id (not by agent and seq) so that GET after a submission is a
 * strongly consistent point read and an operation_id is unique per organization by a plain
 * attribute_not_exists condition. agent_id and kid never contain `#` (schemas/agents.ts), and
 * the nonce is the last key segment, so no value can forge another item's key.
 */
import { createHash } from 'node:crypto';
import type { AgentStatus, IntegrationType, KeyStatus } from '../shared/agent-types.js';
import { padMs } from './dynamo.js';

/**
 * Shards of an organization's operation time index (gsi2). One partition key value takes at
 * most about 1,000 writes a second, so an organization's operations are spread over
 * OPS_INDEX_SHARDS partitions, by agent: an agent's chain is sequential (its client waits
 * for each receipt), so no single agent can make a shard hot, and a query for one agent's
 * operations reads one shard. Readers merge the shards in (created_at, operation_id) order
 * (store/operation-windows.ts).
 */
export const OPS_INDEX_SHARDS = 8;

/** Shards of the agents' activity entries in gsi3 (by organization: one organization's agents stay together). */
export const ACTIVITY_SHARDS = 16;

const shardOf = (value: string, shards: number): number => createHash('sha256').update(value).digest()[0]! % shards;

export const opsIndexShard = (agentId: string): number => shardOf(agentId, OPS_INDEX_SHARDS);
export const activityShard = (orgId: string): number => shardOf(orgId, ACTIVITY_SHARDS);

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
  /** An agent's refused attempts, newest first by `<received_at>#<operation_id>` (docs/API.md §4.3 "Refused attempts"). */
  attemptPartition: (orgId: string, agentId: string) => `ORG#${orgId}#AGENT#${agentId}#ATTEMPTS`,
  attemptPrefix: 'AT#',
  attempt: (orgId: string, agentId: string, position: string) => ({ pk: ledgerKeys.attemptPartition(orgId, agentId), sk: `AT#${position}` }),
  attemptGuard: (orgId: string, agentId: string, operationId: string) => ({ pk: ledgerKeys.attemptPartition(orgId, agentId), sk: `OP#${operationId}` }),
  /** gsi2: an organization's operations in (created_at, operation_id) order, the epoch leaf order (docs/PROTOCOL.md), one shard per agent. */
  orgTimeIndex: (orgId: string, agentId: string, createdAt: number, operationId: string) => ({
    gsi2pk: ledgerKeys.orgTimePartition(orgId, opsIndexShard(agentId)),
    gsi2sk: `${padMs(createdAt)}#${operationId}`,
  }),
  orgTimePartition: (orgId: string, shard: number) => `ORG#${orgId}#OPS#${shard}`,
  /** ops_by_type: one shard of one operation type's entries (the shard last: types may hold `#`). */
  typePartition: (orgId: string, operationType: string, shard: number) => `ORG#${orgId}#TYPE#${operationType}#${shard}`,
  /**
   * The audit indexes (docs/API.md §4.6 filters): one agent's, one type's, and one agent's of one
   * type operations, each in (created_at, operation_id) order by gsi2's own sort key
   * (orgTimeIndex, which every operation row carries). One type's entries
   * are sharded by agent like gsi2 (an organization whose agents all use one type would
   * otherwise write to one partition); an agent's are not (its chain is sequential).
   */
  auditIndexes: (orgId: string, agentId: string, operationType: string) => ({
    oa_pk: `ORG#${orgId}#AGENT#${agentId}#OPS`,
    ot_pk: ledgerKeys.typePartition(orgId, operationType, opsIndexShard(agentId)),
    oat_pk: `ORG#${orgId}#AGENT#${agentId}#TYPE#${operationType}`,
  }),
  /**
   * gsi3 on the agent item: the epoch window of its last accepted operation, so the sealer
   * finds the organizations with news without a write per operation (the submission's head
   * update sets it; the index entry changes once per agent and window).
   */
  activity: (orgId: string, agentId: string, windowStart: number) => ({
    gsi3pk: `ACTIVE#${activityShard(orgId)}`,
    gsi3sk: `${padMs(windowStart)}#${orgId}#${agentId}`,
  }),
};

/**
 * Store keys of an operation's payload and receipt (docs/API.md §2.2 store_payload_key, §2.3
 * store_receipt_key; docs/STORAGE.md). Both are names fixed before the commit. A payload up to
 * LEDGER_INLINE_PAYLOAD_BYTES and every receipt live in the operation row itself under these
 * names; a larger payload is an object of the data bucket under its name. Rows written before
 * receipts moved into the row have their receipt object in the data bucket under
 * store_receipt_key (stored on the row).
 */
export const objectKeys = {
  /**
   * Content-addressed under the operation (the hash is computed from the bytes, never taken
   * from the request): the object is written before the transaction, possibly for a
   * submission that is then rejected, and must never overwrite the payload a committed
   * row points to with other bytes. Every write to one key writes the same bytes.
   */
  payload: (orgId: string, operationId: string, payloadHash: string) => `payloads/${orgId}/${operationId}/${payloadHash}.json`,
  /** Named by the receipt's queue message id (the operation.accepted event id), fixed before the commit. */
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
   * The latest created_at of the agent's accepted operations, set by the submission's head
   * update. A change that ends a key (retire, revoke, agent revocation, deletion) is
   * conditioned on it being before the key's end, so every record the service accepted with a
   * key lies inside its window (docs/PROTOCOL.md "Key events"). Absent before the agent's
   * first operation, and on agents whose operations predate the field.
   */
  latest_created_at?: number;
  /**
   * When the agent's last refused attempt was kept (store/attempts.ts); with latest_created_at
   * it makes the agent's last_seen_at (docs/API.md §2.4). No submission conditions on it.
   */
  last_attempt_at?: number;
  /**
   * Bumped by every key change in the same transaction; a submission conditions on it, so a
   * key revoked or retired while the submission was in flight can never sign it in.
   */
  keys_version: number;
  /**
   * The sealing fence (docs/PROTOCOL.md, Merkle epochs; docs/STORAGE.md): no operation of this
   * agent may commit with created_at before it. The sealer raises it to the end of the
   * windows it is about to seal, and the submission's head update is conditioned on it.
   * Absent on agents registered before the fence existed (no fence yet).
   */
  sealed_until?: number;
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
  /**
   * Whether the key's registration carried a proof of possession that held (docs/PROTOCOL.md
   * "Proof of possession"). Absent on keys stored before the field existed: their key event
   * in the key history says (read-agents.ts reads it there).
   */
  possession_proven?: boolean;
}

/** docs/API.md §2.2 plus bookkeeping; storedOperationView() picks the §2.2 fields for responses. */
export interface OperationItem {
  operation_id: string;
  org_id: string;
  agent_id: string;
  seq_no: number;
  operation_type: string;
  issued_at: number;
  ttl_ms: number;
  nonce: string;
  /** JSON-encoded (RFC 8785 canonical) object, docs/API.md §2.2. */
  subject: string;
  action: string;
  payload_hash: string;
  prev_chain_hash: string;
  chain_hash: string;
  agent_pubkey_kid: string;
  signature: string;
  created_at: number;
  /** The record's op_version: part of the signing input, so needed to re-verify. */
  op_version: string;
  /** UUIDv7 made before the transaction. */
  receipt_id: string;
  /** The previous operation of the chain (null for seq_no 1). */
  prev_operation_id: string | null;
  /** The signing key's public half at submission, so the signature stays checkable after the agent is deleted. */
  agent_public_key: string;
  /**
   * The canonical payload (JCS) when it is at most LEDGER_INLINE_PAYLOAD_BYTES: kept in the
   * row instead of an object (docs/COST.md, Payloads). Absent: the payload is the object
   * under objectKeys.payload, or was erased.
   */
  payload_json?: string;
  /** Set once the payload was erased (who, when, why); the payload is gone, payload_hash stays. */
  payload_erased?: PayloadErasure;
  /**
   * The receipt's queue message id: the id of the operation.accepted event this row carries
   * (the transactional outbox; docs/EVENTS.md). Made before the commit, like the rest of the
   * receipt, which is signed before the commit and stored with the row (receipt_hash,
   * service_kid, service_signature; the other members restate the row).
   */
  queue_message_id: string;
  receipt_hash?: string;
  service_kid?: string;
  service_signature?: string;
  /**
   * Rows written before the receipt moved into the row: the payload object's key as stored,
   * the receipt object's key and when the reference was fixed. New rows have none of these
   * (their keys are derived, objectKeys).
   */
  store_payload_key?: string;
  store_receipt_key?: string;
  receipt_created_at?: number;
  /** Rows sealed before sealing became read-only: the epoch and leaf the sealer marked. */
  epoch_id?: string;
  leaf_index?: number;
}

export const TYPE = { agent: 'agent', tombstone: 'agent_tombstone', key: 'agent_key', operation: 'operation', nonce: 'nonce', attempt: 'attempt', attemptGuard: 'attempt_guard' } as const;

/** An erased payload's mark (POST /v1/operations/:id/erase-payload). */
export interface PayloadErasure {
  /** user id of the owner who erased it */
  by: string;
  /** Unix ms */
  at: number;
  reason: string;
}
