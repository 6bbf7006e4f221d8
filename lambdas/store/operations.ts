/**
 * The operation ledger in the table (layout: ledger-items.ts).
 *
 * A submission commits with one TransactWriteItems of three items (docs/ARCHITECTURE.md, Data;
 * docs/PROTOCOL.md "Rules 7 and 8 and the seq_no assignment are enforced by one atomic
 * conditional write"):
 *   0. Put the operation row        attribute_not_exists(pk)   (operation_id unique per org)
 *   1. Update the agent's head      chain_hash = prev AND seq_no = read seq AND status = active
 *                                   AND keys_version = read version AND created_at is not
 *                                   before the agent's sealing fence (sealed_until);
 *                                   SET the new head, the agent's last active window and its
 *                                   latest created_at (the key changes' condition, agents.ts)
 *   2. Put the nonce                attribute_not_exists(pk)   (a nonce is used once, ever)
 * Of two submissions on the same head exactly one can commit. Failed conditions come back
 * as data (with the agent's current item, ALL_OLD) for the domain to map onto docs/API.md §7.
 */
import {
  batchGetInOrder,
  CONDITION_FAILED,
  getItem,
  INDEX_ATTRIBUTES,
  numberAttribute,
  stringAttribute,
  strip,
  table,
  transact,
  TRANSACTION_CONFLICT,
  type TransactItem,
} from './dynamo.js';
import { ledgerKeys, TYPE, type AgentStatus, type OperationItem, type PayloadErasure } from './ledger-items.js';

export async function readOperation(orgId: string, operationId: string): Promise<OperationItem | null> {
  return (await getItem<OperationItem>(ledgerKeys.operation(orgId, operationId), INDEX_ATTRIBUTES)) ?? null;
}

/** Many rows by id (strongly consistent BatchGetItem), in the order of `operationIds`; missing ones left out. */
export async function readOperations(orgId: string, operationIds: readonly string[]): Promise<OperationItem[]> {
  const items = await batchGetInOrder(operationIds.map((id) => ledgerKeys.operation(orgId, id)));
  return items.map((item) => strip<OperationItem>(item, INDEX_ATTRIBUTES));
}

export async function nonceUsed(orgId: string, agentId: string, nonce: string): Promise<boolean> {
  return (await getItem(ledgerKeys.nonce(orgId, agentId, nonce))) !== undefined;
}

/** The head a submission read and builds on; the commit is conditioned on all of it. */
export interface ExpectedHead {
  seqNo: number;
  chainHash: string;
  keysVersion: number;
  /** Start of the epoch window of created_at: the agent's activity entry (ledger-items.ts). */
  activeWindow: number;
  /** The agent's latest_created_at as read (ledger-items.ts AgentItem); absent when it had none. */
  latestCreatedAt?: number;
}

/** The agent as the failed transaction found it (null: it no longer exists). */
interface AgentAtCommit {
  status: AgentStatus | undefined;
  chainHash: string | undefined;
  seqNo: number | undefined;
  keysVersion: number | undefined;
  sealedUntil: number | undefined;
}

export type CommitResult =
  | { committed: true }
  | {
      committed: false;
      operationExists: boolean;
      /** True when the head condition failed; `agent` then says what it found. */
      headFailed: boolean;
      agent: AgentAtCommit | null;
      nonceUsed: boolean;
      /** A concurrent transaction touched one of the items (real DynamoDB; DynamoDB Local serializes). */
      conflict: boolean;
    };

/**
 * The table item of a new operation row: its key and every index entry it starts in
 * (the organization's time order and the audit filters). The one place that
 * knows them, for the submission and for tools that write rows in bulk (the benchmarks).
 */
export function operationItem(row: OperationItem): Record<string, unknown> {
  const { org_id: orgId, agent_id: agentId } = row;
  return {
    ...ledgerKeys.operation(orgId, row.operation_id),
    type: TYPE.operation,
    ...ledgerKeys.orgTimeIndex(orgId, agentId, row.created_at, row.operation_id),
    ...ledgerKeys.auditIndexes(orgId, agentId, row.operation_type),
    ...row,
  };
}

/** The agent's latest_created_at once a row created at `createdAt` is accepted after `latest`. */
export const latestCreatedAt = (latest: number | undefined, createdAt: number): number => Math.max(latest ?? createdAt, createdAt);

/**
 * The three writes of a submission, in the order of the module comment: what commitOperation
 * commits, and what the benchmark's raw baseline writes (scripts/bench.ts), so both are one.
 */
export function submissionWrites(row: OperationItem, expected: ExpectedHead): TransactItem[] {
  const { org_id: orgId, agent_id: agentId } = row;
  const activity = ledgerKeys.activity(orgId, agentId, expected.activeWindow);
  // The latest of all, not the head's own: two instances' clocks may disagree. Exact, since
  // only submissions write it and this one is conditioned on the head it read it with.
  const latest = latestCreatedAt(expected.latestCreatedAt, row.created_at);
  return [
    {
      Put: {
        TableName: table(),
        Item: operationItem(row),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Update: {
        TableName: table(),
        Key: ledgerKeys.agent(orgId, agentId),
        UpdateExpression: 'SET seq_no = :seq, chain_hash = :hash, head_operation_id = :op, gsi3pk = :apk, gsi3sk = :ask, latest_created_at = :latest',
        ConditionExpression:
          'chain_hash = :prev AND seq_no = :prevSeq AND #status = :active AND keys_version = :kv ' +
          'AND (attribute_not_exists(sealed_until) OR sealed_until <= :created)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':seq': row.seq_no,
          ':hash': row.chain_hash,
          ':op': row.operation_id,
          ':prev': expected.chainHash,
          ':prevSeq': expected.seqNo,
          ':active': 'active',
          ':kv': expected.keysVersion,
          ':created': row.created_at,
          ':latest': latest,
          ':apk': activity.gsi3pk,
          ':ask': activity.gsi3sk,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    {
      Put: {
        TableName: table(),
        Item: {
          ...ledgerKeys.nonce(orgId, agentId, row.nonce),
          type: TYPE.nonce,
          operation_id: row.operation_id,
          created_at: row.created_at,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

export async function commitOperation(row: OperationItem, expected: ExpectedHead): Promise<CommitResult> {
  const result = await transact(submissionWrites(row, expected));
  if (result.committed) return result;
  const [op, head, nonce] = result.reasons;
  const headFailed = head?.code === CONDITION_FAILED;
  return {
    committed: false,
    operationExists: op?.code === CONDITION_FAILED,
    headFailed,
    agent:
      headFailed && head?.item
        ? {
            status: stringAttribute(head.item, 'status') as AgentStatus | undefined,
            chainHash: stringAttribute(head.item, 'chain_hash'),
            seqNo: numberAttribute(head.item, 'seq_no'),
            keysVersion: numberAttribute(head.item, 'keys_version'),
            sealedUntil: numberAttribute(head.item, 'sealed_until'),
          }
        : null,
    nonceUsed: nonce?.code === CONDITION_FAILED,
    conflict: result.reasons.some((reason) => reason.code === TRANSACTION_CONFLICT),
  };
}

/**
 * Marks the operation's payload erased and drops the row's inline copy, with the admin event
 * in the same transaction. False when it was erased already (the first mark stays). The
 * object of a large payload is deleted by the caller after this commit.
 */
export async function markPayloadErased(orgId: string, operationId: string, mark: PayloadErasure, event: TransactItem): Promise<boolean> {
  const result = await transact([
    {
      Update: {
        TableName: table(),
        Key: ledgerKeys.operation(orgId, operationId),
        UpdateExpression: 'SET payload_erased = :mark REMOVE payload_json',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(payload_erased)',
        ExpressionAttributeValues: { ':mark': mark },
      },
    },
    event,
  ]);
  if (result.committed) return true;
  if (result.reasons[0]?.code === CONDITION_FAILED) return false;
  throw new Error(`erasing the payload of ${operationId}: ${result.reasons.map((r) => r.code).join(', ')}`);
}
