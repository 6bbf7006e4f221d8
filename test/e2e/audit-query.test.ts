/**
 * POST /v1/audit/query (docs/API.md §4.6): every filter and every combination of them against
 * rows with known agents, types and created_at (seeded straight into the table), the order
 * (created_at, then operation_id), limits, pagination to the end with a total that stays put
 * while new operations arrive, cursors that are edited, foreign or of another filter, roles
 * and bad input.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../lambdas/shared/roles.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import type { Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { seedOperations, type SeedAgent } from '../support/operation-seed.js';
import type { OperationItem } from '../../lambdas/store/ledger-items.js';

const stack = useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '100000' } });
const as: Partial<Record<Role, Api>> = {};
let orgId: string;
let outsider: Api;
let agents: SeedAgent[];
let rows: OperationItem[];
const T = Date.now() - 3_600_000;
const TYPES = ['file.edit', 'shell.run', 'net.fetch'];

beforeAll(async () => {
  const org = await stack.org(...ROLES);
  orgId = org.orgId;
  Object.assign(as, org.api);
  outsider = (await stack.org('org_owner')).api.org_owner;
  agents = [0, 1, 2].map(() => ({ agentId: uniqueAgentId('audit'), key: newKey() }));
  for (const agent of agents) await registerAgent(as.org_owner!, agent.agentId, [agent.key]);
  // 60 operations: agent i % 3, type (i / 2) % 3, two per millisecond step (same created_at, ordered by id).
  rows = await seedOperations(
    orgId,
    Array.from({ length: 60 }, (_, i) => ({ agent: agents[i % 3]!, operationType: TYPES[Math.floor(i / 2) % 3], createdAt: T + Math.floor(i / 2) * 1000 })),
    { objects: false },
  );
});

const auditor = () => as.compliance_auditor!;
const query = (body: Record<string, unknown>, api = auditor()) => api('POST', '/v1/audit/query', body);
const order = (a: OperationItem, b: OperationItem) => a.created_at - b.created_at || (a.operation_id < b.operation_id ? -1 : 1);

function expected(filter: { agent?: number; type?: string; start?: number; end?: number }): string[] {
  return rows
    .filter((r) => filter.agent === undefined || r.agent_id === agents[filter.agent]!.agentId)
    .filter((r) => filter.type === undefined || r.operation_type === filter.type)
    .filter((r) => filter.start === undefined || r.created_at >= filter.start)
    .filter((r) => filter.end === undefined || r.created_at < filter.end)
    .sort(order)
    .map((r) => r.operation_id);
}

/** Every page of a query, following cursors to the end. */
async function all(body: Record<string, unknown>) {
  const ids: string[] = [];
  const totals: number[] = [];
  let cursor: string | undefined;
  do {
    const res = await query({ ...body, ...(cursor ? { cursor } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.operations.map((op: { operation_id: string }) => op.operation_id));
    totals.push(res.body.total_count);
    cursor = res.body.cursor;
  } while (cursor);
  return { ids, totals };
}

describe('filters, alone and combined', () => {
  const start = T + 5_000;
  const end = T + 20_000;
  const cases: [string, Record<string, unknown>, Parameters<typeof expected>[0]][] = [
    ['none', {}, {}],
    ['agent', { agent: 1 }, { agent: 1 }],
    ['type', { type: 'shell.run' }, { type: 'shell.run' }],
    ['start', { start }, { start }],
    ['end', { end }, { end }],
    ['start and end', { start, end }, { start, end }],
    ['agent and type', { agent: 0, type: 'file.edit' }, { agent: 0, type: 'file.edit' }],
    ['agent and range', { agent: 2, start, end }, { agent: 2, start, end }],
    ['type and range', { type: 'net.fetch', start, end }, { type: 'net.fetch', start, end }],
    ['agent, type and range', { agent: 1, type: 'net.fetch', start, end }, { agent: 1, type: 'net.fetch', start, end }],
    ['agent, type and start', { agent: 1, type: 'file.edit', start }, { agent: 1, type: 'file.edit', start }],
    ['type and end', { type: 'file.edit', end }, { type: 'file.edit', end }],
  ];
  it.each(cases)('%s: exactly the matching rows, oldest first, paged, with their total', async (_, f, filter) => {
    const body = {
      ...(f.agent !== undefined ? { agent_id: agents[f.agent as number]!.agentId } : {}),
      ...(f.type !== undefined ? { operation_type: f.type } : {}),
      ...(f.start !== undefined ? { start_time: f.start } : {}),
      ...(f.end !== undefined ? { end_time: f.end } : {}),
      limit: 7,
    };
    const want = expected(filter);
    expect(want.length).toBeGreaterThan(0);
    const { ids, totals } = await all(body);
    expect(ids).toEqual(want);
    expect(new Set(totals)).toEqual(new Set([want.length]));
  });

  it('start is inclusive and end exclusive, on created_at', async () => {
    const res = await query({ start_time: T + 3_000, end_time: T + 4_000 });
    expect(res.body.operations.map((op: { created_at: number }) => op.created_at)).toEqual([T + 3_000, T + 3_000]);
    expect(res.body.total_count).toBe(2);
    expect(res.body.cursor).toBeUndefined();
  });

  it('answers the stored rows of docs/API.md §2.2, subject and action as JSON strings', async () => {
    const res = await query({ limit: 1 });
    const [op] = res.body.operations;
    expect(Object.keys(op).sort()).toEqual(
      ['operation_id', 'org_id', 'agent_id', 'seq_no', 'operation_type', 'issued_at', 'ttl_ms', 'nonce', 'subject', 'action', 'payload_hash', 'prev_chain_hash', 'chain_hash', 'agent_pubkey_kid', 'signature', 'store_payload_key', 'created_at'].sort(),
    );
    expect(JSON.parse(op.subject)).toEqual({ path: 'src/file-1.ts' });
    expect(JSON.parse(op.action)).toEqual({ verb: 'edit' });
  });

  it('defaults to 100 rows, takes up to 500, and an unknown agent or type matches nothing', async () => {
    expect((await query({})).body.operations).toHaveLength(60);
    expect((await query({ limit: 500 })).body.total_count).toBe(60);
    const none = await query({ agent_id: 'nobody-here' });
    expect(none.body).toEqual({ operations: [], total_count: 0 });
    expect((await query({ operation_type: 'never.used' })).body.total_count).toBe(0);
  });
});

describe('pagination while operations arrive', () => {
  it('keeps its total and its rows: new operations join the next query, not this one', async () => {
    const agent = { agentId: uniqueAgentId('live'), key: newKey() };
    await registerAgent(as.org_owner!, agent.agentId, [agent.key]);
    const chain = new ClientChain(orgId, agent.agentId, agent.key);
    const first = await query({ limit: 10 });
    const total = first.body.total_count as number;
    const ids: string[] = first.body.operations.map((op: { operation_id: string }) => op.operation_id);
    let cursor = first.body.cursor as string | undefined;
    while (cursor) {
      expect((await chain.submit(as.org_owner!)).res.status).toBe(200);
      const page = await query({ limit: 10, cursor });
      expect(page.body.total_count).toBe(total);
      ids.push(...page.body.operations.map((op: { operation_id: string }) => op.operation_id));
      cursor = page.body.cursor;
    }
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    const fresh = await query({ limit: 500 });
    expect(fresh.body.total_count).toBe(total + chain.seqNo);
  });
});

describe('cursors', () => {
  let cursor: string;
  beforeAll(async () => {
    cursor = (await query({ limit: 5, agent_id: agents[0]!.agentId })).body.cursor;
    expect(cursor).toEqual(expect.any(String));
  });

  const refused = async (body: Record<string, unknown>, api = auditor()) => {
    const res = await query(body, api);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toContain('cursor');
  };

  it('works with the same filter', async () => {
    expect((await query({ limit: 5, agent_id: agents[0]!.agentId, cursor })).status).toBe(200);
  });

  it('an edited cursor is VALIDATION_ERROR', async () => {
    const chars = [...cursor];
    const i = Math.floor(chars.length / 2);
    chars[i] = chars[i] === 'A' ? 'B' : 'A';
    await refused({ limit: 5, agent_id: agents[0]!.agentId, cursor: chars.join('') });
    await refused({ limit: 5, agent_id: agents[0]!.agentId, cursor: cursor.slice(0, -4) });
    await refused({ limit: 5, agent_id: agents[0]!.agentId, cursor: 'bm90LWEtY3Vyc29y' });
  });

  it('a cursor of another filter is VALIDATION_ERROR', async () => {
    await refused({ limit: 5, agent_id: agents[1]!.agentId, cursor });
    await refused({ limit: 5, cursor });
    await refused({ limit: 5, agent_id: agents[0]!.agentId, start_time: 0, cursor });
  });

  it("another organization's caller cannot use it: VALIDATION_ERROR, never this organization's rows", async () => {
    const res = await query({ limit: 5, agent_id: agents[0]!.agentId, cursor }, outsider);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toContain(orgId);
  });

  it("another organization's query sees none of these rows", async () => {
    expect((await query({ limit: 500 }, outsider)).body).toEqual({ operations: [], total_count: 0 });
  });
});

describe('roles and bad input', () => {
  it.each(ROLES.map((role) => [role]))('%s', async (role) => {
    const res = await query({ limit: 1 }, as[role]!);
    if (['org_owner', 'security_admin', 'compliance_auditor'].includes(role)) expect(res.status).toBe(200);
    else expect([res.status, res.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });

  it.each([
    ['limit 0', { limit: 0 }],
    ['limit 501', { limit: 501 }],
    ['limit 1.5', { limit: 1.5 }],
    ['limit as a string', { limit: '10' }],
    ['start after end', { start_time: T + 10, end_time: T }],
    ['start equal to end', { start_time: T, end_time: T }],
    ['a negative start', { start_time: -1 }],
    ['a fractional end', { end_time: T + 0.5 }],
    ['an agent id with #', { agent_id: 'a#b' }],
    ['an empty agent id', { agent_id: '' }],
    ['an undotted type', { operation_type: 'edit' }],
    ['a type with #', { operation_type: 'a.b#c' }],
    ['an empty cursor', { cursor: '' }],
    ['a cursor that is not base64url', { cursor: '***' }],
    ['an unknown member', { org_id: 'other' }],
    ['not an object', ['x']],
  ])('%s: VALIDATION_ERROR 400', async (_, body) => {
    const res = await auditor()('POST', '/v1/audit/query', body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });
});
