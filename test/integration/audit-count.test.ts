/**
 * total_count from sealed history (domain/audit/count-matches.ts): the epochs' counts by
 * agent and type, their sums per UTC day, and index counts for what those do not cover (the
 * range's cut windows and the unsealed tail), against DynamoDB Local. Every count is compared
 * with the seeded rows counted by hand, for every filter and many ranges: before sealing,
 * half sealed, all sealed; with windows that divide a day and windows that do not; and with
 * epochs and days from before counts were kept.
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { countMatches } from '../../lambdas/domain/audit/count-matches.js';
import { mapBounded } from '../../lambdas/shared/bounded.js';
import { sealOrganization } from '../../lambdas/domain/epochs/seal-organization.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { DAY_MS, dayCountsBetween } from '../../lambdas/store/epoch-day-counts.js';
import { epochItemsBetween, epochKeys } from '../../lambdas/store/epochs.js';
import type { OperationItem } from '../../lambdas/store/ledger-items.js';
import { newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { seedOperations, type SeedAgent } from '../support/operation-seed.js';
import { signer } from '../../lambdas/runtime/signer.js';

/** A UTC midnight in the past: the seeded days are T, T + 1 day, ... */
const T = Date.UTC(2024, 0, 1);
const TYPES = ['file.edit', 'shell.run', 'net.fetch'];
const HOUR = 3_600_000;

const stack = useLedgerStack({ env: { LEDGER_EPOCH_MS: '3600000', LEDGER_RATE_LIMIT_RPS: '1000000' } });
const table = () => stack.tableName;

interface SeededOrg {
  orgId: string;
  agents: SeedAgent[];
  rows: OperationItem[];
}

/** 240 operations over three and a half days, at irregular times (a fixed sequence), 3 agents, 3 types. */
async function seededOrg(): Promise<SeededOrg> {
  const { orgId, api } = await stack.org('org_owner');
  const agents = [0, 1, 2].map(() => ({ agentId: uniqueAgentId('count'), key: newKey() }));
  for (const agent of agents) await registerAgent(api.org_owner, agent.agentId, [agent.key]);
  let at = T + 17;
  const ops = Array.from({ length: 240 }, (_, i) => {
    at += ((i * 7919) % 97) * 13_001 * 10 + 1;
    return { agent: agents[(i * 5) % 3]!, operationType: TYPES[(i * 7) % 3]!, createdAt: at };
  });
  return { orgId, agents, rows: await seedOperations(orgId, ops, { objects: false }) };
}

function byHand(org: SeededOrg, filter: { agentId?: string; operationType?: string; startTime?: number; endTime: number }): number {
  return org.rows.filter(
    (row) =>
      (filter.agentId === undefined || row.agent_id === filter.agentId) &&
      (filter.operationType === undefined || row.operation_type === filter.operationType) &&
      row.created_at >= (filter.startTime ?? 0) &&
      row.created_at < filter.endTime,
  ).length;
}

/** Ranges that start and end on day and window boundaries, beside them, inside windows, and open. */
function ranges(epochMs: number): { startTime?: number; endTime: number }[] {
  const last = T + 4 * DAY_MS;
  const points = [T - 1, T, T + epochMs - 1, T + DAY_MS + epochMs + 12_345, T + 2 * DAY_MS, T + 2 * DAY_MS + 7 * HOUR + 5, T + 3 * DAY_MS + 1, last];
  const out: { startTime?: number; endTime: number }[] = [{ endTime: Date.now() }, { endTime: last }];
  for (const start of points) for (const end of points) if (start < end) out.push({ startTime: start, endTime: end });
  return out;
}

async function expectExact(org: SeededOrg, epochMs: number, only?: 'unfiltered and pair'): Promise<void> {
  const all = [{}, { agentId: org.agents[1]!.agentId }, { operationType: 'shell.run' }, { agentId: org.agents[2]!.agentId, operationType: 'net.fetch' }];
  const filters = only ? [all[0]!, all[3]!] : all;
  const queries = filters.flatMap((filter) => ranges(epochMs).map((range) => ({ ...filter, ...range })));
  queries.push({ agentId: 'nobody', endTime: Date.now() });
  // A few counts at a time, as concurrent audit queries would ask: hundreds at once (each several requests)
  // queue in the SDK's connection pool for longer than its connection timeout while DynamoDB Local is busy.
  const counted = await mapBounded(queries, 4, (query) => countMatches(org.orgId, query));
  expect(counted.map((count, i) => [queries[i], count])).toEqual(queries.map((query) => [query, byHand(org, query)]));
}

const seal = (orgId: string, epochMs: number, now: number) => sealOrganization(orgId, { now, epochMs, graceMs: 1_000, settleMs: 0, anchorWanted: false, signer: signer() });

describe.each([
  ['one-hour windows (dividing a day)', HOUR],
  ['seven-hour windows (straddling days)', 7 * HOUR],
])('%s', (_, epochMs) => {
  let org: SeededOrg;
  beforeAll(async () => {
    org = await seededOrg();
  }, 60_000);

  it('counts exactly before any sealing, half sealed, and all sealed', async () => {
    // Before sealing every count comes from the index alone (its filters are covered by the audit query's own tests).
    await expectExact(org, epochMs, 'unfiltered and pair');
    await seal(org.orgId, epochMs, T + 2 * DAY_MS + 9 * HOUR);
    expect((await dayCountsBetween(org.orgId, T, T + 4 * DAY_MS)).length).toBeGreaterThan(0);
    await expectExact(org, epochMs);
    await seal(org.orgId, epochMs, T + 5 * DAY_MS);
    await expectExact(org, epochMs);
  }, 120_000);

  it('counts sealed days from the day items and epochs, not the index', async () => {
    // Inflating one day's stored count shows in a range over that day, and only there.
    const [day] = await dayCountsBetween(org.orgId, T + DAY_MS, T + 2 * DAY_MS);
    expect(day?.counts).toBeDefined();
    const key = { pk: `ORG#${org.orgId}#EPOCH_DAYS`, sk: `DAY#${String(day!.day_start).padStart(13, '0')}` };
    await dynamo().send(new UpdateCommand({ TableName: table(), Key: key, UpdateExpression: 'SET leaf_count = leaf_count + :n', ExpressionAttributeValues: { ':n': 1000 } }));
    const range = { startTime: T + DAY_MS, endTime: T + 2 * DAY_MS + (epochMs === HOUR ? 0 : 7 * HOUR) };
    expect(await countMatches(org.orgId, range)).toBe(byHand(org, range) + 1000);
    await dynamo().send(new UpdateCommand({ TableName: table(), Key: key, UpdateExpression: 'SET leaf_count = leaf_count - :n', ExpressionAttributeValues: { ':n': 1000 } }));
    expect(await countMatches(org.orgId, range)).toBe(byHand(org, range));
  });

  it('stays exact with epochs and days from before counts were kept', async () => {
    // An epoch without counts (sealed by an earlier version), and a day without its item.
    const epochs = await epochItemsBetween(org.orgId, T, T + 4 * DAY_MS);
    for (const epoch of epochs.filter((_, i) => i % 3 === 0)) {
      await dynamo().send(new UpdateCommand({ TableName: table(), Key: epochKeys.epoch(org.orgId, epoch.start_time), UpdateExpression: 'REMOVE counts' }));
    }
    await dynamo().send(new DeleteCommand({ TableName: table(), Key: { pk: `ORG#${org.orgId}#EPOCH_DAYS`, sk: `DAY#${String(T + 2 * DAY_MS).padStart(13, '0')}` } }));
    await expectExact(org, epochMs);
  }, 120_000);
});
