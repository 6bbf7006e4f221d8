// Agents over HTTP (docs/API.md §2.4, §2.5, §3, §4.3, and the key endpoints of the route table):
// registration, reads with the chain head, updates, every status and key transition with
// its admin event and queue event, and deletion that keeps operations verifiable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENESIS } from '@agent-ledger/protocol';
import { adminEvents, recordQueue } from '../support/ledger-inspect.js';
import { ClientChain, keyBody, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { type Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
let orgId: string;
let actor: string;
let api: Api;
let queueLog: ReturnType<typeof recordQueue>;

beforeAll(async () => {
  const seeded = await stack.org('org_owner');
  ({ orgId, api: { org_owner: api } } = seeded);
  actor = seeded.users.org_owner.userId;
  queueLog = recordQueue(stack.queue);
});
afterAll(async () => {
  queueLog.restore();
});

async function lastAdminEvent(action: string) {
  const events = (await adminEvents(orgId)).filter((event) => event.action === action);
  return events.at(-1);
}

describe('register', () => {
  it('creates an active agent with its keys, GENESIS head and an agent.register event', async () => {
    const agentId = uniqueAgentId();
    const keys = [newKey('k1'), newKey('k2')];
    const before = Date.now();
    const res = await api('POST', '/v1/agents/register', {
      agent_id: agentId,
      integration_type: 'claudecode',
      responsible_entity: 'platform team',
      keys: keys.map((key) => keyBody(key, orgId, agentId)),
    });
    expect(res.status).toBe(200);
    expect(res.body.agent).toEqual({
      agent_id: agentId,
      org_id: orgId,
      display_name: agentId,
      responsible_entity: 'platform team',
      integration_type: 'claudecode',
      status: 'active',
      created_at: expect.any(Number),
      updated_at: res.body.agent.created_at,
      // no record accepted and no attempt kept yet (docs/API.md §2.4)
      last_seen_at: null,
    });
    expect(res.body.agent.created_at).toBeGreaterThanOrEqual(before);
    expect(res.body.keys).toEqual(
      keys.map((key) => ({
        kid: key.kid,
        agent_id: agentId,
        public_key: key.publicKey,
        algorithm: 'ed25519',
        status: 'active',
        created_at: res.body.agent.created_at,
        retired_at: null,
        // registered through the SDK's body, with its proof (docs/API.md §2.5)
        possession_proven: true,
      })),
    );

    const got = await api('GET', `/v1/agents/${agentId}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ agent: res.body.agent, keys: res.body.keys, chain: { seq_no: 0, chain_hash: GENESIS } });

    const event = await lastAdminEvent('agent.register');
    expect(event).toMatchObject({ actor, target_type: 'agent', target_id: agentId });
    expect(JSON.parse(event!.details!)).toMatchObject({ kids: ['k1', 'k2'] });
  });

  it('refuses an agent_id already registered with VALIDATION_ERROR 409', async () => {
    const agentId = uniqueAgentId();
    await registerAgent(api, agentId, [newKey()]);
    const again = await api('POST', '/v1/agents/register', { agent_id: agentId, integration_type: 'sdk', keys: [keyBody(newKey(), orgId, agentId)] });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('VALIDATION_ERROR');
  });

  it.each([
    ['a 31-byte public key', (k: ReturnType<typeof keyBody>) => ({ keys: [{ ...k, public_key: k.public_key.slice(0, 42) }] }), /keys\[0\]\.public_key/],
    ['duplicate kids', (k: ReturnType<typeof keyBody>) => ({ keys: [k, k] }), /kids must be unique/],
    ['no keys', () => ({ keys: [] }), /at least one key/],
    ['an unknown integration type', () => ({ integration_type: 'notepad' }), /integration_type/],
    ['an agent_id that could forge a key', () => ({ agent_id: 'a#KEY#x' }), /agent_id/],
  ])('refuses %s with VALIDATION_ERROR 400 naming the field', async (_name, change, message) => {
    const id = uniqueAgentId();
    const body = { agent_id: id, integration_type: 'sdk', keys: [keyBody(newKey(), orgId, id)] };
    const res = await api('POST', '/v1/agents/register', { ...body, ...change(body.keys[0]!) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(message);
  });

  it('lists the organization’s agents', async () => {
    const agentId = uniqueAgentId('listed');
    await registerAgent(api, agentId, [newKey()]);
    const res = await api('GET', '/v1/agents');
    expect(res.status).toBe(200);
    expect(res.body.agents.map((agent: { agent_id: string }) => agent.agent_id)).toContain(agentId);
  });

  it('answers an unknown agent with NOT_FOUND 404', async () => {
    const res = await api('GET', `/v1/agents/${uniqueAgentId('missing')}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});

describe('update', () => {
  it('changes the integration type, refreshes updated_at and logs agent.update', async () => {
    const agentId = uniqueAgentId();
    const registered = await registerAgent(api, agentId, [newKey()]);
    const res = await api('PATCH', `/v1/agents/${agentId}`, { integration_type: 'cursor', display_name: 'Cursor on laptop' });
    expect(res.status).toBe(200);
    expect(res.body.agent).toMatchObject({ integration_type: 'cursor', display_name: 'Cursor on laptop', created_at: registered.agent.created_at });
    expect(res.body.agent.updated_at).toBeGreaterThan(registered.agent.updated_at - 1);
    expect((await api('GET', `/v1/agents/${agentId}`)).body.agent).toEqual(res.body.agent);
    expect(JSON.parse((await lastAdminEvent('agent.update'))!.details!)).toMatchObject({ integration_type: 'cursor', previous_integration_type: 'sdk' });
  });

  it('requires integration_type and answers unknown agents with 404', async () => {
    const agentId = uniqueAgentId();
    await registerAgent(api, agentId, [newKey()]);
    expect((await api('PATCH', `/v1/agents/${agentId}`, { display_name: 'x' })).status).toBe(400);
    expect((await api('PATCH', `/v1/agents/${uniqueAgentId('missing')}`, { integration_type: 'sdk' })).status).toBe(404);
  });
});

describe('status transitions (docs/API.md §3)', () => {
  it('freeze → unfreeze with previous_status, admin events and agent.status_changed', async () => {
    const agentId = uniqueAgentId();
    await registerAgent(api, agentId, [newKey()]);
    const sentBefore = queueLog.events().length;

    const frozen = await api('POST', `/v1/agents/${agentId}/freeze`, { reason: 'suspicious activity' });
    expect(frozen.status).toBe(200);
    expect(frozen.body.previous_status).toBe('active');
    expect(frozen.body.agent.status).toBe('frozen');
    expect(JSON.parse((await lastAdminEvent('agent.freeze'))!.details!)).toMatchObject({ reason: 'suspicious activity', previous_status: 'active' });

    const thawed = await api('POST', `/v1/agents/${agentId}/unfreeze`, { reason: 'cleared' });
    expect(thawed.status).toBe(200);
    expect(thawed.body).toMatchObject({ previous_status: 'frozen', agent: { status: 'active' } });
    expect((await lastAdminEvent('agent.unfreeze'))!.target_id).toBe(agentId);

    const sent = queueLog.events().slice(sentBefore).map((entry) => entry.body);
    expect(sent).toEqual([
      { event: 'agent.status_changed', event_id: (await lastAdminEvent('agent.freeze'))!.event_id, org_id: orgId, timestamp: expect.any(Number), data: { agent_id: agentId, from: 'active', to: 'frozen', reason: 'suspicious activity' } },
      { event: 'agent.status_changed', event_id: (await lastAdminEvent('agent.unfreeze'))!.event_id, org_id: orgId, timestamp: expect.any(Number), data: { agent_id: agentId, from: 'frozen', to: 'active', reason: 'cleared' } },
    ]);
  });

  it('refuses unfreezing an agent that is not frozen, freezing twice, and a missing reason', async () => {
    const agentId = uniqueAgentId();
    await registerAgent(api, agentId, [newKey()]);
    const unfreeze = await api('POST', `/v1/agents/${agentId}/unfreeze`, { reason: 'r' });
    expect(unfreeze.status).toBe(409);
    expect(unfreeze.body.error.code).toBe('VALIDATION_ERROR');
    expect((await api('POST', `/v1/agents/${agentId}/freeze`, {})).status).toBe(400);
    expect((await api('POST', `/v1/agents/${agentId}/freeze`, { reason: 'r' })).status).toBe(200);
    expect((await api('POST', `/v1/agents/${agentId}/freeze`, { reason: 'r' })).status).toBe(409);
  });

  it('revoking the agent revokes every key, logs agent.revoke and can never be undone', async () => {
    const agentId = uniqueAgentId();
    await registerAgent(api, agentId, [newKey('k1'), newKey('k2')]);
    await api('POST', `/v1/agents/${agentId}/freeze`, { reason: 'first' });
    const sentBefore = queueLog.events().length;

    const revoked = await api('POST', `/v1/agents/${agentId}/revoke`, { reason: 'compromised host' });
    expect(revoked.status).toBe(200);
    expect(revoked.body.previous_status).toBe('frozen');
    expect(revoked.body.agent.status).toBe('revoked');
    expect(revoked.body.keys.map((key: { status: string }) => key.status)).toEqual(['revoked', 'revoked']);
    expect(revoked.body.keys.every((key: { retired_at: number | null }) => typeof key.retired_at === 'number')).toBe(true);
    expect((await api('GET', `/v1/agents/${agentId}`)).body.keys).toEqual(revoked.body.keys);
    expect(JSON.parse((await lastAdminEvent('agent.revoke'))!.details!)).toMatchObject({ reason: 'compromised host', revoked_kids: ['k1', 'k2'] });
    expect(queueLog.events().slice(sentBefore).map((entry) => entry.body.data)).toEqual([
      { agent_id: agentId, from: 'frozen', to: 'revoked', reason: 'compromised host' },
    ]);

    for (const [path, body] of [
      ['unfreeze', { reason: 'r' }],
      ['freeze', { reason: 'r' }],
      ['revoke', { reason: 'again' }],
      ['keys', keyBody(newKey('k3'), orgId, agentId)],
    ] as const) {
      const res = await api('POST', `/v1/agents/${agentId}/${path}`, body);
      expect(res.status, path).toBe(409);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('keys', () => {
  it('revokes one key with kid (key.revoke), irreversibly', async () => {
    const agentId = uniqueAgentId();
    await registerAgent(api, agentId, [newKey('k1'), newKey('k2')]);
    const res = await api('POST', `/v1/agents/${agentId}/revoke`, { kid: 'k1', reason: 'laptop lost' });
    expect(res.status).toBe(200);
    expect(res.body.key).toMatchObject({ kid: 'k1', status: 'revoked', retired_at: expect.any(Number) });
    expect(Object.keys(res.body)).toEqual(['key']);
    const detail = await api('GET', `/v1/agents/${agentId}`);
    expect(detail.body.agent.status).toBe('active');
    expect(detail.body.keys.map((key: { kid: string; status: string }) => [key.kid, key.status])).toEqual([['k1', 'revoked'], ['k2', 'active']]);
    expect(JSON.parse((await lastAdminEvent('key.revoke'))!.details!)).toMatchObject({ kid: 'k1', reason: 'laptop lost' });

    expect((await api('POST', `/v1/agents/${agentId}/revoke`, { kid: 'k1', reason: 'again' })).status).toBe(409);
    expect((await api('POST', `/v1/agents/${agentId}/revoke`, { kid: 'nope', reason: 'x' })).status).toBe(404);
  });

  it('adds a key (key.add), never reusing a kid, and retires one (key.retire)', async () => {
    const agentId = uniqueAgentId();
    await registerAgent(api, agentId, [newKey('k1')]);
    const added = await api('POST', `/v1/agents/${agentId}/keys`, keyBody(newKey('k2'), orgId, agentId));
    expect(added.status).toBe(200);
    expect(added.body.key).toMatchObject({ kid: 'k2', status: 'active', retired_at: null });
    expect((await lastAdminEvent('key.add'))!.target_id).toBe(`${agentId}/k2`);
    expect((await api('POST', `/v1/agents/${agentId}/keys`, keyBody(newKey('k2'), orgId, agentId))).status).toBe(409);

    const retired = await api('POST', `/v1/agents/${agentId}/keys/k1/retire`);
    expect(retired.status).toBe(200);
    expect(retired.body.key).toMatchObject({ kid: 'k1', status: 'retired', retired_at: expect.any(Number) });
    expect((await lastAdminEvent('key.retire'))!.target_id).toBe(`${agentId}/k1`);
    expect((await api('POST', `/v1/agents/${agentId}/keys/k1/retire`, { reason: 'again' })).status).toBe(409);
    expect((await api('POST', `/v1/agents/${agentId}/keys/zz/retire`)).status).toBe(404);

    // A retired key can still be revoked; it keeps its retirement time.
    const revoked = await api('POST', `/v1/agents/${agentId}/revoke`, { kid: 'k1', reason: 'cleanup' });
    expect(revoked.body.key).toMatchObject({ status: 'revoked', retired_at: retired.body.key.retired_at });
    expect((await api('POST', `/v1/agents/${agentId}/keys`, keyBody(newKey('k1'), orgId, agentId))).status).toBe(409);
  });
});

describe('delete', () => {
  it('removes the agent and its keys for good, keeps its operations verifiable and its id taken', async () => {
    const agentId = uniqueAgentId();
    const key = newKey();
    await registerAgent(api, agentId, [key]);
    const chain = new ClientChain(orgId, agentId, key);
    const first = await chain.submit(api);
    const second = await chain.submit(api);
    expect([first.res.status, second.res.status]).toEqual([200, 200]);

    const deleted = await api('DELETE', `/v1/agents/${agentId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: true });
    expect((await api('GET', `/v1/agents/${agentId}`)).status).toBe(404);
    expect((await api('GET', '/v1/agents')).body.agents.map((a: { agent_id: string }) => a.agent_id)).not.toContain(agentId);
    expect(JSON.parse((await lastAdminEvent('agent.delete'))!.details!)).toMatchObject({ seq_no: 2, kids: [key.kid] });

    // Operations are evidence: still readable and still verifiable without the key item.
    for (const { record } of [first, second]) {
      const got = await api('GET', `/v1/operations/${record.operation_id}`);
      expect(got.status).toBe(200);
      const verified = await api('POST', `/v1/operations/${record.operation_id}/verify`);
      expect(verified.body).toEqual({ valid: true, checks: { signature: true, chain: true, receipt: true } });
    }
    // New submissions name an unknown agent; the id cannot be registered again.
    expect((await chain.submit(api)).res.body.error.code).toBe('UNKNOWN_AGENT');
    const again = await api('POST', '/v1/agents/register', { agent_id: agentId, integration_type: 'sdk', keys: [keyBody(newKey(), orgId, agentId)] });
    expect(again.status).toBe(409);
    expect((await api('DELETE', `/v1/agents/${agentId}`)).status).toBe(404);
  });
});
