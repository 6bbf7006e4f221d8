/**
 * Fixtures for sealer tests: operation rows written straight into the table in the ledger's
 * layout (lambdas/store/ledger-items.ts: the row and its time index entry), with any
 * created_at a test needs, an agent whose last activity makes the sealer look at the
 * organization, and readers for what the sealer leaves behind. Uses the process's configured
 * table (the test stack sets it).
 */
import { randomBytes } from 'node:crypto';
import { BatchWriteCommand, GetCommand, UpdateCommand, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { config } from '../../lambdas/config.js';
import { ledgerKeys } from '../../lambdas/store/ledger-items.js';
import { epochItemsBetween, epochKeys, type EpochItem } from '../../lambdas/store/epochs.js';
import { loadLeafList } from '../../lambdas/domain/epochs/commit-epoch.js';
import type { MemberCandidate } from '../../lambdas/domain/epochs/epoch.js';
import { uuidv7 } from '../../lambdas/domain/ledger/uuidv7.js';
import { dynamo } from '../../lambdas/store/clients.js';

/** An operation with a fresh UUIDv7 id and a random chain hash; by the fixture agent unless `agentId` is given. */
export interface FixtureOp extends MemberCandidate {
  agent_id?: string;
}

export function fixtureOp(createdAt: number, agentId?: string): FixtureOp {
  return { operation_id: uuidv7(createdAt), created_at: createdAt, chain_hash: randomBytes(32).toString('base64url'), ...(agentId ? { agent_id: agentId } : {}) };
}

/** The item the ledger commits for an operation, trimmed to what the sealer reads, plus `extra`. */
export const FIXTURE_AGENT = 'fixture-agent';

export function operationItem(orgId: string, op: FixtureOp, extra: Record<string, unknown> = {}) {
  const agentId = op.agent_id ?? FIXTURE_AGENT;
  return {
    ...ledgerKeys.operation(orgId, op.operation_id),
    type: 'operation',
    ...ledgerKeys.orgTimeIndex(orgId, agentId, op.created_at, op.operation_id),
    operation_id: op.operation_id,
    org_id: orgId,
    agent_id: agentId,
    chain_hash: op.chain_hash,
    created_at: op.created_at,
    ...extra,
  };
}

/** The fixture agent's activity entry at `lastActive` (1 ms windows: as recent as any window of any test). */
function activityValues(orgId: string, lastActive: number) {
  const { gsi3pk, gsi3sk } = ledgerKeys.activity(orgId, FIXTURE_AGENT, lastActive);
  return { ':apk': gsi3pk, ':ask': gsi3sk };
}

/** Writes rows 25 at a time (BatchWriteItem), retrying unprocessed items, and marks the fixture agent active. */
export async function writeOperationRows(orgId: string, ops: readonly FixtureOp[], extra: Record<string, unknown> = {}): Promise<void> {
  const table = config().tableName;
  const latest = Math.max(...ops.map((op) => op.created_at));
  if (Number.isFinite(latest)) {
    // 1 ms windows make the activity entry at least as recent as any window of any test.
    await dynamo().send(new UpdateCommand({
      TableName: table,
      Key: ledgerKeys.agent(orgId, FIXTURE_AGENT),
      UpdateExpression: 'SET #type = :type, agent_id = :agent, org_id = :org, #status = if_not_exists(#status, :active), gsi3pk = :apk, gsi3sk = :ask',
      ExpressionAttributeNames: { '#type': 'type', '#status': 'status' },
      ExpressionAttributeValues: { ':type': 'agent', ':agent': FIXTURE_AGENT, ':org': orgId, ':active': 'active', ...activityValues(orgId, latest) },
    }));
  }
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
