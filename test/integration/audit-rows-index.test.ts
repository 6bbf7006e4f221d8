/**
 * An unfiltered audit page reads its rows from ops_by_time (store/operation-index.ts), an
 * index a deploy adds to a table already full of operations (docs/DEPLOY.md, Upgrades).
 * The fallback while DynamoDB builds it (gsi2's positions and the rows by key) is not
 * exercised here: DynamoDB Local keeps a deleted index DELETING for good and answers its
 * Queries with InternalFailure, not the ValidationException DynamoDB gives.
 */
import { STORED_ROW_FIELDS } from '@agent-ledger/protocol';
import { beforeAll, expect, it } from 'vitest';
import { operationPage, type OrderPosition } from '../../lambdas/store/operation-index.js';
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

it('pages read whole stored rows from the rows index, in order, every row once', async () => {
  const fromIndex = await allPages();
  expect(fromIndex.rows).toHaveLength(30);
  expect(new Set(fromIndex.rows.map((row) => row.operation_id)).size).toBe(30);
  expect(Object.keys(fromIndex.rows[0]!).sort()).toEqual(STORED_ROW_FIELDS.filter((field) => field !== 'store_payload_key').sort());
  const order = fromIndex.rows.map((row) => [Number(row.created_at), String(row.operation_id)] as const);
  expect(order).toEqual([...order].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)));
  expect(fromIndex.more.slice(0, -1).every(Boolean) && fromIndex.more.at(-1) === false).toBe(true);
}, 180_000);
