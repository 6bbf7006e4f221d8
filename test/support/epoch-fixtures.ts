/**
 * Fixtures for sealer tests: operation rows written straight into the table in the ledger's
 * layout (lambdas/store/ledger-items.ts: the row, its time index and its sparse
 * "unsealed" index entry), with any created_at a test needs, and readers for what the sealer
 * leaves behind. Uses the process's configured table (the test stack sets it).
 */
import { randomBytes } from 'node:crypto';
import { BatchWriteCommand, GetCommand, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { config } from '../../lambdas/config.js';
import { ledgerKeys } from '../../lambdas/store/ledger-items.js';
import { epochItemsBetween, epochKeys, type EpochItem } from '../../lambdas/store/epochs.js';
import { loadLeafList } from '../../lambdas/domain/epochs/commit-epoch.js';
import type { MemberCandidate } from '../../lambdas/domain/epochs/epoch.js';
import type { EventMessage } from '../../lambdas/domain/events.js';
import type { Queue, QueueMessage, QueueName } from '../../lambdas/domain/ports.js';
import { uuidv7 } from '../../lambdas/domain/ledger/uuidv7.js';
import { dynamo } from '../../lambdas/store/clients.js';

/** An operation with a fresh UUIDv7 id and a random chain hash. */
export function fixtureOp(createdAt: number): MemberCandidate {
  return { operation_id: uuidv7(createdAt), created_at: createdAt, chain_hash: randomBytes(32).toString('base64url') };
}

/** The item the ledger commits for an operation, trimmed to what the sealer reads, plus `extra`. */
export function operationItem(orgId: string, op: MemberCandidate, extra: Record<string, unknown> = {}) {
  return {
    ...ledgerKeys.operation(orgId, op.operation_id),
    type: 'operation',
    ...ledgerKeys.orgTimeIndex(orgId, op.created_at, op.operation_id),
    ...ledgerKeys.unsealedIndex(orgId, op.created_at, op.operation_id),
    operation_id: op.operation_id,
    org_id: orgId,
    agent_id: 'fixture-agent',
    chain_hash: op.chain_hash,
    created_at: op.created_at,
    ...extra,
  };
}

/** Writes rows 25 at a time (BatchWriteItem), retrying unprocessed items. */
export async function writeOperationRows(orgId: string, ops: readonly MemberCandidate[], extra: Record<string, unknown> = {}): Promise<void> {
  const table = config().tableName;
  for (let i = 0; i < ops.length; i += 25) {
    let requests: NonNullable<BatchWriteCommandOutput['UnprocessedItems']>[string] | undefined = ops
      .slice(i, i + 25)
      .map((op) => ({ PutRequest: { Item: operationItem(orgId, op, extra) } }));
    while (requests && requests.length > 0) {
      const out: BatchWriteCommandOutput = await dynamo().send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = out.UnprocessedItems?.[table];
    }
  }
}

/** The raw row, table keys included (strongly consistent). */
export async function rawOperationRow(orgId: string, operationId: string): Promise<Record<string, unknown> | undefined> {
  const out = await dynamo().send(
    new GetCommand({ TableName: config().tableName, Key: ledgerKeys.operation(orgId, operationId), ConsistentRead: true }),
  );
  return out.Item;
}

/** Whether the epoch still has follow-up work (its entry in the follow-up index). */
export async function hasFollowUp(orgId: string, startTime: number): Promise<boolean> {
  const out = await dynamo().send(
    new GetCommand({ TableName: config().tableName, Key: epochKeys.epoch(orgId, startTime), ConsistentRead: true }),
  );
  return out.Item?.gsi3pk !== undefined;
}

/** Every epoch of the organization, oldest first. */
export function epochsOf(orgId: string): Promise<EpochItem[]> {
  return epochItemsBetween(orgId, 0, 2 ** 48);
}

export async function leafIdsOf(item: EpochItem): Promise<string[]> {
  return (await loadLeafList(item)).leaves.map((leaf) => leaf.operation_id);
}

/** A Queue that keeps what was sent; `failNext` makes the next sends throw, as an SQS outage would. */
export function recordingQueue() {
  const sent: EventMessage[] = [];
  let failures = 0;
  const queue: Queue & { sent: EventMessage[]; failNext(count?: number): void } = {
    sent,
    failNext(count = 1) {
      failures = count;
    },
    async send(_name: QueueName, message: QueueMessage) {
      if (failures > 0) {
        failures--;
        throw new Error('simulated queue outage');
      }
      sent.push(JSON.parse(JSON.stringify(message.body)) as EventMessage);
      return randomBytes(8).toString('hex');
    },
    async sendToDeadLetters() {
      throw new Error('the sealer never dead-letters');
    },
    async ping() {},
  };
  return queue;
}
