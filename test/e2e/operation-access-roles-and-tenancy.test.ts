// Roles, tenancy and visibility on the agent and operation endpoints: each role allowed or
// refused exactly as docs/API.md §4.3 / §4.5 list them (key endpoints: org_owner,
// security_admin), another organization's token never sees or changes anything here, and
// the read_all rule (§5) once an assignment exists.
import { beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../lambdas/shared/roles.js';
import { ClientChain, keyBody, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { type Api, type ApiResponse } from '../support/http-client.js';
import { seedAssignment, seedOrg, seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
let orgId: string;
let owner: Api;
const as: Partial<Record<Role, Api>> = {};

beforeAll(async () => {
  const seeded = await stack.org(...ROLES);
  orgId = seeded.orgId;
  Object.assign(as, seeded.api);
  owner = as.org_owner!;
});

/** An agent with keys k1 (signing) and k2, and one accepted operation. */
async function fixture() {
  const agentId = uniqueAgentId();
  const k1 = newKey('k1');
  await registerAgent(owner, agentId, [k1, newKey('k2')]);
  const chain = new ClientChain(orgId, agentId, k1);
  const { record, res } = await chain.submit(owner);
  expect(res.status).toBe(200);
  return { agentId, chain, operationId: record.operation_id };
}

type Fixture = Awaited<ReturnType<typeof fixture>>;

const WRITERS: Role[] = ['org_owner', 'security_admin', 'integration_engineer'];
const ADMINS: Role[] = ['org_owner', 'security_admin'];

const ROUTES: { name: string; allowed: readonly Role[]; call: (api: Api, f: Fixture) => Promise<ApiResponse> }[] = [
  { name: 'POST /v1/agents/register', allowed: WRITERS, call: (api) => { const id = uniqueAgentId(); return api('POST', '/v1/agents/register', { agent_id: id, integration_type: 'sdk', keys: [keyBody(newKey(), orgId, id)] }); } },
  { name: 'GET /v1/agents', allowed: ROLES, call: (api) => api('GET', '/v1/agents') },
  { name: 'GET /v1/agents/:id', allowed: ROLES, call: (api, f) => api('GET', `/v1/agents/${f.agentId}`) },
  { name: 'PATCH /v1/agents/:id', allowed: WRITERS, call: (api, f) => api('PATCH', `/v1/agents/${f.agentId}`, { integration_type: 'codex' }) },
  { name: 'DELETE /v1/agents/:id', allowed: ADMINS, call: (api, f) => api('DELETE', `/v1/agents/${f.agentId}`) },
  { name: 'POST freeze', allowed: ADMINS, call: (api, f) => api('POST', `/v1/agents/${f.agentId}/freeze`, { reason: 'r' }) },
  { name: 'POST unfreeze', allowed: ADMINS, call: async (api, f) => {
    await owner('POST', `/v1/agents/${f.agentId}/freeze`, { reason: 'r' });
    return api('POST', `/v1/agents/${f.agentId}/unfreeze`, { reason: 'r' });
  } },
  { name: 'POST revoke (key)', allowed: ADMINS, call: (api, f) => api('POST', `/v1/agents/${f.agentId}/revoke`, { kid: 'k2', reason: 'r' }) },
  { name: 'POST revoke (agent)', allowed: ADMINS, call: (api, f) => api('POST', `/v1/agents/${f.agentId}/revoke`, { reason: 'r' }) },
  { name: 'POST keys', allowed: ADMINS, call: (api, f) => api('POST', `/v1/agents/${f.agentId}/keys`, keyBody(newKey('k3'), orgId, f.agentId)) },
  { name: 'POST keys/:kid/retire', allowed: ADMINS, call: (api, f) => api('POST', `/v1/agents/${f.agentId}/keys/k2/retire`) },
  { name: 'POST /v1/operations', allowed: WRITERS, call: (api, f) => api('POST', '/v1/operations', f.chain.record()) },
  { name: 'GET /v1/operations/:id', allowed: ROLES, call: (api, f) => api('GET', `/v1/operations/${f.operationId}`) },
  { name: 'POST verify', allowed: ROLES, call: (api, f) => api('POST', `/v1/operations/${f.operationId}/verify`) },
  { name: 'POST erase-payload', allowed: ['org_owner'], call: (api, f) => api('POST', `/v1/operations/${f.operationId}/erase-payload`, { reason: 'a leaked secret' }) },
];

describe('roles (docs/API.md §4.3, §4.5)', () => {
  it.each(ROUTES)('$name: allowed exactly for its roles', async ({ allowed, call }) => {
    const outcome: Record<string, number> = {};
    for (const role of ROLES) outcome[role] = (await call(as[role]!, await fixture())).status;
    const expected = Object.fromEntries(ROLES.map((role) => [role, allowed.includes(role) ? 200 : 403]));
    expect(outcome).toEqual(expected);
  });

  it('a user without an organization is FORBIDDEN', async () => {
    const loner = stack.api((await seedUser(null, 'org_owner')).token);
    const f = await fixture();
    for (const { call } of ROUTES) expect((await call(loner, f)).status).toBe(403);
  });
});

describe('tenancy: another organization', () => {
  let other: Api;
  let otherOrgId: string;
  beforeAll(async () => {
    otherOrgId = await seedOrg('Other');
    other = stack.api((await seedUser(otherOrgId, 'org_owner')).token);
  });

  it('never sees or changes this organization’s agents or operations', async () => {
    const f = await fixture();
    expect((await other('GET', '/v1/agents')).body.agents).toEqual([]);
    for (const route of ROUTES.filter((r) => r.name !== 'POST /v1/agents/register' && r.name !== 'GET /v1/agents' && r.name !== 'POST /v1/operations')) {
      const res = await route.call(other, f);
      expect(`${route.name}: ${res.status} ${res.body.error?.code}`).toBe(`${route.name}: 404 NOT_FOUND`);
    }
    // Submitting into this organization is forbidden; naming its agent from the other one finds nothing.
    expect((await other('POST', '/v1/operations', f.chain.record())).body.error.code).toBe('FORBIDDEN');
    const foreign = new ClientChain(otherOrgId, f.agentId, f.chain.key);
    expect((await other('POST', '/v1/operations', foreign.record())).body.error.code).toBe('UNKNOWN_AGENT');
    // Untouched: not deleted, not revoked, same keys, one operation. (Frozen by the owner in
    // the unfreeze case's setup; the other organization's unfreeze did not thaw it.)
    const detail = (await owner('GET', `/v1/agents/${f.agentId}`)).body;
    expect(detail).toMatchObject({ agent: { status: 'frozen', integration_type: 'sdk' }, chain: { seq_no: 1 } });
    expect(detail.keys.map((key: { kid: string; status: string }) => `${key.kid}:${key.status}`)).toEqual(['k1:active', 'k2:active']);
  });

  it('agent ids are unique per organization only', async () => {
    const f = await fixture();
    expect((await other('POST', '/v1/agents/register', { agent_id: f.agentId, integration_type: 'sdk', keys: [keyBody(newKey(), otherOrgId, f.agentId)] })).status).toBe(200);
  });
});

describe('visibility (docs/API.md §5 read_all)', () => {
  it('once an assignment exists, integration_engineer and readonly_investigator see only their assigned agents', async () => {
    const visibilityOrg = await seedOrg('Visibility');
    const users = Object.fromEntries(await Promise.all(ROLES.map(async (role) => [role, await seedUser(visibilityOrg, role)] as const))) as Record<Role, Awaited<ReturnType<typeof seedUser>>>;
    const api = (role: Role) => stack.api(users[role].token);
    const make = async () => {
      const agentId = uniqueAgentId();
      const key = newKey('k1');
      await registerAgent(api('org_owner'), agentId, [key]);
      const chain = new ClientChain(visibilityOrg, agentId, key);
      const { record } = await chain.submit(api('org_owner'));
      return { agentId, chain, operationId: record.operation_id };
    };
    const mine = await make();
    const theirs = await make();
    const ids = (res: { body: { agents: { agent_id: string }[] } }) => res.body.agents.map((a) => a.agent_id).sort();

    // No assignment yet: everyone sees everything.
    expect(ids(await api('integration_engineer')('GET', '/v1/agents'))).toEqual([mine.agentId, theirs.agentId].sort());

    await seedAssignment(visibilityOrg, mine.agentId, users.integration_engineer.userId);
    const engineer = api('integration_engineer');
    expect(ids(await engineer('GET', '/v1/agents'))).toEqual([mine.agentId]);
    expect((await engineer('GET', `/v1/agents/${mine.agentId}`)).status).toBe(200);
    expect((await engineer('GET', `/v1/agents/${theirs.agentId}`)).status).toBe(404);
    expect((await engineer('PATCH', `/v1/agents/${theirs.agentId}`, { integration_type: 'sdk' })).status).toBe(404);
    expect((await engineer('GET', `/v1/operations/${theirs.operationId}`)).status).toBe(404);
    expect((await engineer('POST', `/v1/operations/${theirs.operationId}/verify`)).status).toBe(404);
    expect((await engineer('GET', `/v1/operations/${mine.operationId}`)).status).toBe(200);
    expect((await engineer('POST', '/v1/operations', theirs.chain.record())).body.error.code).toBe('UNKNOWN_AGENT');
    expect((await mine.chain.submit(engineer)).res.status).toBe(200);

    // readonly_investigator has no assignment: sees none. read_all roles still see all.
    expect(ids(await api('readonly_investigator')('GET', '/v1/agents'))).toEqual([]);
    expect((await api('readonly_investigator')('GET', `/v1/operations/${mine.operationId}`)).status).toBe(404);
    for (const role of ['org_owner', 'security_admin', 'compliance_auditor'] as const) {
      expect(ids(await api(role)('GET', '/v1/agents'))).toEqual([mine.agentId, theirs.agentId].sort());
    }
  });
});
