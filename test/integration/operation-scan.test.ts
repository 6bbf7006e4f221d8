/**
 * Pages merged from a sharded index (store/operation-index.ts OperationScan, operationPage):
 * shards asked first for their share of a page, more only when the merge needs it. With one
 * agent far busier than the others (its shard holds most of every page) and one nearly
 * idle, every page size gives exactly the operations in (created_at, operation_id) order,
 * each once, and `more` is false exactly at the end, for a single page read after a position
 * (the audit query) and for a scan that reads ahead (an export).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { OperationScan, operationPage, type OrderPosition } from '../../lambdas/store/operation-index.js';
import type { OperationItem } from '../../lambdas/store/ledger-items.js';
import { newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { seedOperations } from '../support/operation-seed.js';

const stack = useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '1000000' } });
let orgId: string;
let expected: string[];
const T = Date.now() - 3_600_000;

beforeAll(async () => {
  const org = await stack.org('org_owner');
  orgId = org.orgId;
  const agents = [0, 1, 2].map(() => ({ agentId: uniqueAgentId('scan'), key: newKey() }));
  for (const agent of agents) await registerAgent(org.api.org_owner, agent.agentId, [agent.key]);
  // 400 operations: 85% the busy agent's, 2% the idle one's; several share a millisecond.
  const rows: OperationItem[] = await seedOperations(
    orgId,
    Array.from({ length: 400 }, (_, i) => ({ agent: agents[i % 50 < 42 ? 0 : i % 50 === 49 ? 2 : 1]!, createdAt: T + Math.floor(i / 3) * 7 })),
    { objects: false },
  );
  expected = rows
    .sort((a, b) => a.created_at - b.created_at || (a.operation_id < b.operation_id ? -1 : 1))
    .map((row) => row.operation_id);
}, 60_000);

describe.each([5, 64, 399, 400, 500])('pages of %i', (size) => {
  // Pages of 5 are 80 queries in sequence: room for a machine slowed by other files.
  it('one page at a time after the last position: every operation once, in order, more until the last', { timeout: 90_000 }, async () => {
    const ids: string[] = [];
    let after: OrderPosition | undefined;
    for (;;) {
      const page = await operationPage(orgId, {}, { limit: size, after, attributes: ['operation_id', 'created_at'] });
      ids.push(...page.items.map((item) => String(item.operation_id)));
      const last = page.items.at(-1);
      expect(page.more).toBe(ids.length < expected.length);
      if (!page.more || !last) break;
      after = { created_at: Number(last.created_at), operation_id: String(last.operation_id) };
    }
    expect(ids).toEqual(expected);
  });

  it('a scan reading ahead: the same operations, each once', async () => {
    const scan = new OperationScan(orgId, {}, undefined, 1_000);
    const ids: string[] = [];
    for (let more = true; more; ) {
      const page = await scan.nextPage(size);
      ids.push(...page.positions.map((position) => position.operation_id));
      more = page.more;
    }
    expect(ids).toEqual(expected);
  });
});

it('a time range bounds the page: start inclusive, end exclusive', async () => {
  // created_at = T + floor(i / 3) * 7: [T + 7 * 34, T + 7 * 84) holds the seeding's 102nd to 251st operations.
  const rows = await operationPage(orgId, { startTime: T + 7 * 34, endTime: T + 7 * 84 }, { limit: 500, attributes: ['operation_id'] });
  expect(rows.items.map((item) => String(item.operation_id))).toEqual(expected.slice(102, 252));
  expect(rows.more).toBe(false);
});
