/**
 * An unfiltered audit page reads its rows from ops_by_time (store/operation-index.ts), an
 * index a deploy adds to a table already full of operations (docs/DEPLOY.md, Upgrades).
 * While DynamoDB builds it, Queries of it are refused; here the table lacks it altogether,
 * which DynamoDB answers the same way (ValidationException naming the index). The page then
 * reads gsi2's positions and the rows by key: the same rows, in the same order, the same
 * `more`.
 */
import { DescribeTableCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { STORED_ROW_FIELDS } from '@agent-ledger/protocol';
import { beforeAll, expect, it } from 'vitest';
import { localDynamoClient } from '../../local/dynamodb-local.js';
import { operationPage, type OrderPosition } from '../../lambdas/store/operation-index.js';
import { OPS_ROWS_INDEX } from '../../lambdas/store/table-design.js';
import { newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { seedOperations } from '../support/operation-seed.js';

const stack = useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '1000000' } });
let orgId: string;
const T = Date.now() - 3_600_000;

/** Every page of 7 rows, from the first to the last. */
async function allPages(): Promise<{ rows: Record<string, unknown>[]; more: boolean[] }> {
  const rows: Record<string, unknown>[] = [];
  const more: boolean[] = [];
  let after: OrderPosition | undefined;
  for (;;) {
    const page = await operationPage(orgId, { endTime: Date.now() }, { limit: 7, after, attributes: STORED_ROW_FIELDS });
    rows.push(...page.items);
    more.push(page.more);
    const last = page.items.at(-1);
    if (!page.more || !last) return { rows, more };
    after = { created_at: Number(last.created_at), operation_id: String(last.operation_id) };
  }
}

beforeAll(async () => {
  const org = await stack.org('org_owner');
  orgId = org.orgId;
  const agents = [0, 1, 2].map(() => ({ agentId: uniqueAgentId('fallback'), key: newKey() }));
  for (const agent of agents) await registerAgent(org.api.org_owner, agent.agentId, [agent.key]);
  await seedOperations(orgId, Array.from({ length: 30 }, (_, i) => ({ agent: agents[i % 3]!, createdAt: T + Math.floor(i / 2) * 10 })), { objects: false });
}, 60_000);

it('pages read from the rows index, and from gsi2 and the rows by key once the table lacks it: the same rows', async () => {
  const fromIndex = await allPages();
  expect(fromIndex.rows).toHaveLength(30);
  expect(Object.keys(fromIndex.rows[0]!).sort()).toEqual(STORED_ROW_FIELDS.filter((field) => field !== 'store_payload_key').sort());

  const dynamo = localDynamoClient(stack.dynamoEndpoint);
  await dynamo.send(new UpdateTableCommand({ TableName: stack.tableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: OPS_ROWS_INDEX.name } }] }));
  const indexNames = async () => ((await dynamo.send(new DescribeTableCommand({ TableName: stack.tableName }))).Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName);
  for (const deadline = Date.now() + 90_000; (await indexNames()).includes(OPS_ROWS_INDEX.name); await new Promise((resolve) => setTimeout(resolve, 100))) {
    if (Date.now() > deadline) throw new Error(`${OPS_ROWS_INDEX.name} still there after 90 s`);
  }

  const fallback = await allPages();
  expect(fallback.rows).toEqual(fromIndex.rows);
  expect(fallback.more).toEqual(fromIndex.more);
}, 180_000);
