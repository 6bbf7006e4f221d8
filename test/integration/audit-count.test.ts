/**
 * total_count from sealed history (domain/audit/count-matches.ts): the epochs' counts by
 * agent and type, their sums per UTC hour and day, and index counts for what those do not
 * cover (the range's cut windows and the unsealed tail), against DynamoDB Local. Every count
 * is compared with the seeded rows counted by hand, for every filter and many ranges: before
 * sealing, half sealed, all sealed; with windows that divide an hour, windows that divide a
 * day, and windows that do not; and with epochs, hours and days from before counts were kept.
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { countMatches } from '../../lambdas/domain/audit/count-matches.js';
import { mapBounded } from '../../lambdas/shared/bounded.js';
import { sealOrganization } from '../../lambdas/domain/epochs/seal-organization.js';
import { spanWindowsEnd } from '../../lambdas/domain/epochs/span-counts.js';
import { sealedUntil } from '../../lambdas/store/sealer-state.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { DAY_MS, spanCountKey, spanCountsBetween } from '../../lambdas/store/epoch-span-counts.js';
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
  const points = [T - 1, T, T + epochMs - 1, T + 5 * HOUR, T + DAY_MS + epochMs + 12_345, T + 2 * DAY_MS, T + 2 * DAY_MS + 7 * HOUR + 5, T + 3 * DAY_MS + 1, last];
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

/** Adds 1,000 to a stored item's leaf_count: a count over `range` shows it exactly when it reads that item. */
async function expectInflatedIn(org: SeededOrg, key: Record<string, string>, range: { startTime: number; endTime: number }): Promise<void> {
  const bump = (n: number) => dynamo().send(new UpdateCommand({ TableName: table(), Key: key, UpdateExpression: 'SET leaf_count = leaf_count + :n', ExpressionAttributeValues: { ':n': n } }));
  await bump(1000);
  try {
    expect(await countMatches(org.orgId, range)).toBe(byHand(org, range) + 1000);
  } finally {
    await bump(-1000);
  }
  expect(await countMatches(org.orgId, range)).toBe(byHand(org, range));
}

const seal = (orgId: string, epochMs: number, now: number) => sealOrganization(orgId, { now, epochMs, graceMs: 1_000, settleMs: 0, anchorWanted: false, signer: signer() });

// Every filter with the day-sized cases; the hour-sized one adds its items' cover, the same for every filter,
// and only once sealed (before any sealing a count does not depend on the windows).
describe.each([
  ['30-minute windows (dividing an hour)', HOUR / 2, 'unfiltered and pair'],
  ['one-hour windows (dividing a day)', HOUR, undefined],
  ['seven-hour windows (straddling days)', 7 * HOUR, undefined],
] as const)('%s', (_, epochMs, filters) => {
  let org: SeededOrg;
  beforeAll(async () => {
    org = await seededOrg();
  }, 60_000);

  it('counts exactly before any sealing, half sealed, and all sealed', async () => {
    // Before sealing every count comes from the index alone (its filters are covered by the audit query's own tests).
    if (filters === undefined) await expectExact(org, epochMs, 'unfiltered and pair');
    await seal(org.orgId, epochMs, T + 2 * DAY_MS + 9 * HOUR);
    expect((await spanCountsBetween(org.orgId, 'day', T, T + 4 * DAY_MS)).length).toBeGreaterThan(0);
    expect((await spanCountsBetween(org.orgId, 'hour', T, T + 4 * DAY_MS)).length).toBeGreaterThan(0);
    await expectExact(org, epochMs, filters);
    await seal(org.orgId, epochMs, T + 5 * DAY_MS);
    await expectExact(org, epochMs, filters);
    // An hour item for every hour whose windows are all sealed and in which an epoch starts, and none for the others.
    const sealed = (await sealedUntil(org.orgId))!;
    const epochHours = new Set((await epochItemsBetween(org.orgId, T, T + 5 * DAY_MS)).map((epoch) => Math.floor(epoch.start_time / HOUR) * HOUR));
    const complete = [...epochHours].filter((hour) => spanWindowsEnd('hour', hour, epochMs) <= sealed).sort((a, b) => a - b);
    expect(complete.length).toBeGreaterThan(0);
    expect((await spanCountsBetween(org.orgId, 'hour', T, T + 5 * DAY_MS)).map((hour) => hour.start)).toEqual(complete);
  }, 120_000);

  it('counts sealed days from the day items and epochs, not the index', async () => {
    // Inflating one day's stored count shows in a range over that day, and only there.
    const [day] = await spanCountsBetween(org.orgId, 'day', T + DAY_MS, T + 2 * DAY_MS);
    expect(day?.counts).toBeDefined();
    const range = { startTime: T + DAY_MS, endTime: T + 2 * DAY_MS + (epochMs === 7 * HOUR ? 7 * HOUR : 0) };
    await expectInflatedIn(org, spanCountKey(org.orgId, 'day', day!.start), range);
  });

  it('counts the hours of a range\'s partial days from the hour items', async () => {
    // The range cuts both its days: whole hours inside come from their items, the cut ones from epochs and the index.
    const range = { startTime: T + DAY_MS + 2 * HOUR + 17, endTime: T + 2 * DAY_MS + 9 * HOUR + 5 };
    const hours = (await spanCountsBetween(org.orgId, 'hour', T + DAY_MS + 3 * HOUR, T + 2 * DAY_MS)).filter((hour) => hour.counts !== undefined && hour.span_end <= range.endTime);
    expect(hours.length).toBeGreaterThan(0);
    await expectInflatedIn(org, spanCountKey(org.orgId, 'hour', hours[0]!.start), range);
  });

  it('stays exact with epochs, hours and days from before counts were kept', async () => {
    // An epoch without counts (sealed by an earlier version), a day and hours without their items.
    const epochs = await epochItemsBetween(org.orgId, T, T + 4 * DAY_MS);
    for (const epoch of epochs.filter((_, i) => i % 3 === 0)) {
      await dynamo().send(new UpdateCommand({ TableName: table(), Key: epochKeys.epoch(org.orgId, epoch.start_time), UpdateExpression: 'REMOVE counts' }));
    }
    await dynamo().send(new DeleteCommand({ TableName: table(), Key: spanCountKey(org.orgId, 'day', T + 2 * DAY_MS) }));
    // Hours sealed before hour items were kept: two hours of a partial day, and two of the day just left without its item.
    for (const hour of [T + 3 * DAY_MS + HOUR, T + 3 * DAY_MS + 5 * HOUR, T + 2 * DAY_MS + 7 * HOUR, T + 2 * DAY_MS + 8 * HOUR]) {
      await dynamo().send(new DeleteCommand({ TableName: table(), Key: spanCountKey(org.orgId, 'hour', hour) }));
    }
    await expectExact(org, epochMs, filters);
  }, 120_000);
});

describe('an organization whose history starts long after 1970', () => {
  it('reads no item from before its first epoch once this process knows that epoch', async () => {
    const org = await seededOrg();
    await seal(org.orgId, HOUR, T + 5 * DAY_MS);
    const [first] = await epochItemsBetween(org.orgId, 0, T + 5 * DAY_MS);
    const send = vi.spyOn(dynamo(), 'send');
    try {
      // The first count of an open range reads the first epoch; the next ones start there.
      expect(await countMatches(org.orgId, { endTime: Date.now() })).toBe(org.rows.length);
      send.mockClear();
      expect(await countMatches(org.orgId, { endTime: Date.now() })).toBe(org.rows.length);
      expect(await countMatches(org.orgId, { startTime: 1, endTime: T + DAY_MS })).toBe(byHand(org, { startTime: 1, endTime: T + DAY_MS }));
      const bounds = send.mock.calls.map(([command]) => (command.input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues ?? {});
      const sealedReads = bounds.filter((values) => /#EPOCH(S|_HOURS|_DAYS)$/.test(String(values[':pk'])));
      expect(sealedReads.length).toBeGreaterThan(0);
      for (const values of sealedReads) {
        expect(values[':before']).toBeUndefined();
        expect(Number(String(values[':from']).split('#')[1])).toBeGreaterThanOrEqual(first!.start_time);
      }
    } finally {
      send.mockRestore();
    }
  }, 120_000);
});
