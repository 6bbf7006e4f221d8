// GET /v1/stats/activity (docs/API.md §4.11): operations per UTC hour and day per agent, the
// most active `top` agents with a series each and the rest as other, and the freezes,
// unfreezes and revocations of the range. The counts equal what the audit query lists, both
// before and after the sealer takes the operations into epochs (whose counts they then come
// from); other roles are FORBIDDEN, another organization sees none of it, and a bad query is
// a VALIDATION_ERROR.
import { beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../lambdas/shared/roles.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import type { Api, Loose } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { waitForSealedLeaves } from '../support/sealed-leaves.js';

// Epochs of one second, so the sealed path is taken within the test.
const stack = useLedgerStack({ env: { LEDGER_EPOCH_MS: '1000', LEDGER_EPOCH_GRACE_MS: '200' } });

const HOUR = 3_600_000;
const DAY = 86_400_000;
const AUDITORS: Role[] = ['org_owner', 'security_admin', 'compliance_auditor'];

let as: Record<Role, Api>;
let owner: Api;
let outsider: Api;
/** Operations submitted per agent, most first: seven agents, so five series and two in other. */
const PLAN = [6, 5, 4, 3, 2, 1, 1];
const agents = PLAN.map(() => uniqueAgentId('stats'));
let created: { agent_id: string; created_at: number }[];

beforeAll(async () => {
  const seeded = await stack.org(...ROLES);
  as = seeded.api;
  owner = as.org_owner;
  outsider = (await stack.org('org_owner')).api.org_owner;
  const chains: ClientChain[] = [];
  for (const agentId of agents) {
    const key = newKey('k1');
    await registerAgent(owner, agentId, [key, newKey('k2')]);
    chains.push(new ClientChain(seeded.orgId, agentId, key));
  }
  await Promise.all(chains.map(async (chain, i) => {
    for (let n = 0; n < PLAN[i]!; n++) expect((await chain.submit(owner)).res.status).toBe(200);
  }));
  // The status changes the charts mark, each with its reason.
  expect((await owner('POST', `/v1/agents/${agents[0]}/freeze`, { reason: 'odd tool use' })).status).toBe(200);
  expect((await owner('POST', `/v1/agents/${agents[0]}/unfreeze`, { reason: 'explained' })).status).toBe(200);
  expect((await owner('POST', `/v1/agents/${agents[1]}/revoke`, { kid: 'k2', reason: 'key leaked' })).status).toBe(200);
  expect((await owner('POST', `/v1/agents/${agents[6]}/revoke`, { reason: 'retired' })).status).toBe(200);
  // What the audit query lists: the counts below must say the same.
  const listed = await owner('POST', '/v1/audit/query', { limit: 500 });
  created = listed.body.operations.map((row: { agent_id: string; created_at: number }) => ({ agent_id: row.agent_id, created_at: row.created_at }));
  expect(created).toHaveLength(PLAN.reduce((a, b) => a + b, 0));
}, 240_000);

const hourRange = () => {
  const to = Math.ceil((Date.now() + 1) / HOUR) * HOUR;
  return { from: to - 24 * HOUR, to };
};
const dayRange = () => {
  const to = Math.ceil((Date.now() + 1) / DAY) * DAY;
  return { from: to - 30 * DAY, to };
};
const query = (params: Record<string, string | number>) => `/v1/stats/activity?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`;

/** Per bucket, how many of `rows` fall in it. */
function expectedCounts(rows: { created_at: number }[], from: number, size: number, buckets: number): number[] {
  const counts = new Array<number>(buckets).fill(0);
  for (const row of rows) counts[Math.floor((row.created_at - from) / size)]! += 1;
  return counts;
}

function expectMatchesListing(body: Loose, size: number): void {
  const { from, to } = body;
  const buckets = (to - from) / size;
  expect(body.buckets).toEqual(Array.from({ length: buckets }, (_, i) => from + i * size));
  expect(body.totals).toEqual(expectedCounts(created, from, size, buckets));
  // The five most active agents, most operations first, each with exactly its own operations.
  expect(body.series.map((one: { agent_id: string }) => one.agent_id)).toEqual(agents.slice(0, 5));
  for (const [i, one] of body.series.entries()) {
    expect(one.total).toBe(PLAN[i]);
    expect(one.counts).toEqual(expectedCounts(created.filter((row) => row.agent_id === agents[i]), from, size, buckets));
  }
  expect(body.other).toEqual({ agent_count: 2, total: 2, counts: expectedCounts(created.filter((row) => agents.slice(5).includes(row.agent_id)), from, size, buckets) });
}

const waitForSealed = (count: number) => waitForSealedLeaves(owner, count, 30_000);

describe('operations per hour and per day, per agent', () => {
  it('counts what the audit query lists, per hour and per day, before and after sealing', async () => {
    // Before sealing (some may be sealed already: the sum is the same either way).
    const early = await owner('GET', query({ bucket: 'hour', ...hourRange() }));
    expect(early.status, JSON.stringify(early.body)).toBe(200);
    expectMatchesListing(early.body, HOUR);

    await waitForSealed(created.length);
    const hours = await owner('GET', query({ bucket: 'hour', ...hourRange() }));
    expect(hours.body.bucket).toBe('hour');
    expect(hours.body.buckets).toHaveLength(24);
    expectMatchesListing(hours.body, HOUR);
    const days = await owner('GET', query({ bucket: 'day', ...dayRange() }));
    expect(days.status).toBe(200);
    expect(days.body.buckets).toHaveLength(30);
    expectMatchesListing(days.body, DAY);
  }, 60_000);

  it('gives every agent its own series with top, and one agent alone with agent_id', async () => {
    const all = await owner('GET', query({ bucket: 'hour', ...hourRange(), top: 20 }));
    expect(all.body.series.map((one: { total: number }) => one.total)).toEqual(PLAN);
    expect(all.body.other).toMatchObject({ agent_count: 0, total: 0 });

    const one = await owner('GET', query({ bucket: 'day', ...dayRange(), agent_id: agents[0]! }));
    expect(one.body.series).toHaveLength(1);
    expect(one.body.series[0]).toMatchObject({ agent_id: agents[0], total: PLAN[0] });
    expect(one.body.totals.reduce((a: number, b: number) => a + b, 0)).toBe(PLAN[0]);
    expect(one.body.events.map((event: { action: string }) => event.action)).toEqual(['agent.freeze', 'agent.unfreeze']);
  });

  it('marks the freezes, unfreezes and revocations of the range, oldest first, with their reasons', async () => {
    const { body } = await owner('GET', query({ bucket: 'hour', ...hourRange() }));
    expect(body.events.map((event: Record<string, unknown>) => [event.action, event.agent_id, event.kid, event.reason])).toEqual([
      ['agent.freeze', agents[0], undefined, 'odd tool use'],
      ['agent.unfreeze', agents[0], undefined, 'explained'],
      ['key.revoke', agents[1], 'k2', 'key leaked'],
      ['agent.revoke', agents[6], undefined, 'retired'],
    ]);
    const times = body.events.map((event: { created_at: number }) => event.created_at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // A range that ends before the events holds none of them, nor any operation.
    const before = await owner('GET', query({ bucket: 'hour', from: hourRange().from - 24 * HOUR, to: hourRange().from }));
    expect(before.body.events).toEqual([]);
    expect(before.body.totals.every((n: number) => n === 0)).toBe(true);
  });
});

describe('who may ask', () => {
  it('answers the audit roles and refuses the others', async () => {
    const outcome = Object.fromEntries(await Promise.all(ROLES.map(async (role) => [role, (await as[role]('GET', query({ bucket: 'hour', ...hourRange() }))).status] as const)));
    expect(outcome).toEqual(Object.fromEntries(ROLES.map((role) => [role, AUDITORS.includes(role) ? 200 : 403])));
  });

  it('another organization sees none of it, even naming an agent of this one', async () => {
    const theirs = await outsider('GET', query({ bucket: 'day', ...dayRange() }));
    expect(theirs.status).toBe(200);
    expect(theirs.body.totals.every((n: number) => n === 0)).toBe(true);
    expect(theirs.body).toMatchObject({ series: [], other: { agent_count: 0, total: 0 }, events: [] });
    const named = await outsider('GET', query({ bucket: 'day', ...dayRange(), agent_id: agents[0]! }));
    expect(named.status).toBe(200);
    expect(named.body).toMatchObject({ series: [], events: [] });
    expect(named.body.totals.every((n: number) => n === 0)).toBe(true);
  });

  it('refuses an anonymous request', async () => {
    expect((await stack.api()('GET', query({ bucket: 'hour', ...hourRange() }))).status).toBe(401);
  });
});

describe('bad queries are VALIDATION_ERROR', () => {
  const { from, to } = { from: 1_700_006_400_000 - 24 * HOUR, to: 1_700_006_400_000 };
  it.each([
    ['an unknown bucket', { bucket: 'week', from, to }, 'bucket'],
    ['no bucket', { from, to }, 'bucket'],
    ['no from', { bucket: 'hour', to }, 'from'],
    ['a from off the hour', { bucket: 'hour', from: from + 1, to }, 'from'],
    ['a to off the day', { bucket: 'day', from: to - DAY, to: to + HOUR }, 'to'],
    ['from not before to', { bucket: 'hour', from: to, to }, 'from'],
    ['more than 744 hours', { bucket: 'hour', from: to - 745 * HOUR, to }, 'to'],
    ['more than 366 days', { bucket: 'day', from: 0, to: 367 * DAY }, 'to'],
    ['a number that is not one', { bucket: 'hour', from: 'yesterday', to }, 'from'],
    ['top 0', { bucket: 'hour', from, to, top: 0 }, 'top'],
    ['top 21', { bucket: 'hour', from, to, top: 21 }, 'top'],
    ['an agent id that cannot be one', { bucket: 'hour', from, to, agent_id: 'no spaces allowed' }, 'agent_id'],
    ['an unknown parameter', { bucket: 'hour', from, to, org_id: 'someone-else' }, ''],
  ])('%s', async (_name, params, field) => {
    const res = await owner('GET', query(params as Record<string, string | number>));
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toContain(field);
  });
});
