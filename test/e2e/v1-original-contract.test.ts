// The /v1 contract holds for a client written against the original one (docs/API.md §9): it
// registers an agent and adds a key with exactly the original bodies, `{agent_id,
// integration_type, keys: [{kid, public_key, algorithm}]}` and `{kid, public_key,
// algorithm}`, with no field beyond them, and its records go through the chain. A proof of
// possession is an addition to those bodies: optional, and checked when it is there (a wrong
// one is VALIDATION_ERROR 400 either way, docs/PROTOCOL.md "Proof of possession").
import { beforeAll, describe, expect, it } from 'vitest';
import { provePossession } from '@agent-ledger/protocol';
import { ClientChain, newKey, uniqueAgentId, type TestKey } from '../support/ledger-fixtures.js';
import type { Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { seedUser } from '../support/seed-identity.js';

// Loopback webhooks (LEDGER_WEBHOOK_ALLOW_LOOPBACK, as the rehearsal and npm start's test setup allow): registration needs no DNS.
const stack = useLedgerStack({ env: { LEDGER_WEBHOOK_ALLOW_LOOPBACK: '1' } });
let orgId: string;
let owner: Api;
let engineer: Api;

beforeAll(async () => {
  // A new organization, as a newcomer integrating against /v1 has.
  ({ orgId, api: { org_owner: owner, integration_engineer: engineer } } = await stack.org('org_owner', 'integration_engineer'));
});

/** A key exactly as the original contract's bodies carry it: these three members and no other. */
const originalKey = (key: TestKey) => ({ kid: key.kid, public_key: key.publicKey, algorithm: 'ed25519' });

describe('the original /v1 bodies', () => {
  it('register an agent, add a key, and the records of both keys go through the chain and verify', async () => {
    const agentId = uniqueAgentId('v1-original');
    const [k1, k2] = [newKey('k1'), newKey('k2')];
    const registered = await engineer('POST', '/v1/agents/register', { agent_id: agentId, integration_type: 'sdk', keys: [originalKey(k1)] });
    expect(`${registered.status} ${JSON.stringify(registered.body.error ?? '')}`).toBe('200 ""');
    expect(registered.body.agent).toMatchObject({ agent_id: agentId, org_id: orgId, status: 'active', integration_type: 'sdk', display_name: agentId });
    expect(registered.body.keys).toMatchObject([{ kid: 'k1', agent_id: agentId, public_key: k1.publicKey, algorithm: 'ed25519', status: 'active', retired_at: null }]);

    const chain = new ClientChain(orgId, agentId, k1);
    for (const expected of [1, 2]) {
      const { res } = await chain.submit(engineer);
      expect(`${res.status} ${res.body.receipt?.seq_no}`).toBe(`200 ${expected}`);
    }

    const added = await owner('POST', `/v1/agents/${agentId}/keys`, originalKey(k2));
    expect(`${added.status} ${JSON.stringify(added.body.error ?? '')}`).toBe('200 ""');
    expect(added.body.key).toMatchObject({ kid: 'k2', agent_id: agentId, public_key: k2.publicKey, algorithm: 'ed25519', status: 'active' });
    chain.key = k2;
    const { record, res } = await chain.submit(engineer);
    expect(`${res.status} ${res.body.receipt?.seq_no}`).toBe('200 3');

    const detail = await engineer('GET', `/v1/agents/${agentId}`);
    expect(detail.body.keys.map((k: { kid: string; status: string }) => `${k.kid} ${k.status}`)).toEqual(['k1 active', 'k2 active']);
    expect(detail.body.chain.seq_no).toBe(3);
    const verified = await engineer('POST', `/v1/operations/${record.operation_id}/verify`);
    expect(verified.body).toMatchObject({ valid: true, checks: { signature: true, chain: true, receipt: true } });

    const events = (await owner('GET', '/v1/admin/events?limit=100')).body.events as { action: string; target_id: string }[];
    expect(events.filter((e) => e.target_id === agentId).map((e) => e.action)).toEqual(['agent.register']);
    expect(events.filter((e) => e.target_id === `${agentId}/k2`).map((e) => e.action)).toEqual(['key.add']);
  });

  it('a proof that is there but wrong is still VALIDATION_ERROR 400 on both routes, and writes nothing', async () => {
    const agentId = uniqueAgentId('v1-wrong-proof');
    const k1 = newKey('k1');
    const byAnotherKey = provePossession(newKey().privateKey, { org_id: orgId, agent_id: agentId, kid: 'k1', registered_at: Date.now() });
    const refused = await engineer('POST', '/v1/agents/register', { agent_id: agentId, integration_type: 'sdk', keys: [{ ...originalKey(k1), proof: byAnotherKey }] });
    expect(`${refused.status} ${refused.body.error?.code}`).toBe('400 VALIDATION_ERROR');
    expect(refused.body.error.message).toMatch(/body\.keys\[0\]\.proof/);
    expect((await engineer('GET', `/v1/agents/${agentId}`)).status).toBe(404);

    expect((await engineer('POST', '/v1/agents/register', { agent_id: agentId, integration_type: 'sdk', keys: [originalKey(k1)] })).status).toBe(200);
    const k2 = newKey('k2');
    const forAnotherKid = provePossession(k2.privateKey, { org_id: orgId, agent_id: agentId, kid: 'k3', registered_at: Date.now() });
    const addRefused = await owner('POST', `/v1/agents/${agentId}/keys`, { ...originalKey(k2), proof: forAnotherKid });
    expect(`${addRefused.status} ${addRefused.body.error?.code}`).toBe('400 VALIDATION_ERROR');
    expect(addRefused.body.error.message).toMatch(/body\.proof/);
    const malformed = await owner('POST', `/v1/agents/${agentId}/keys`, { ...originalKey(k2), proof: null });
    expect(`${malformed.status} ${malformed.body.error?.code}`).toBe('400 VALIDATION_ERROR');
    expect((await engineer('GET', `/v1/agents/${agentId}`)).body.keys.map((k: { kid: string }) => k.kid)).toEqual(['k1']);
  });
});

/**
 * The rest of the original contract's requests, each with exactly the body (or query) it
 * lists and nothing more, and the answer's members it names: a re-audit of every /v1 body
 * since, so that no later rule became required under the same prefix (docs/API.md §9).
 */
describe('every other original /v1 request body', () => {
  const ok = (res: { status: number; body: Record<string, unknown> }, status = 200) =>
    expect(`${res.status} ${JSON.stringify(res.body?.error ?? '')}`).toBe(`${status} ""`);

  it('sessions, onboarding and tokens', async () => {
    const newcomer = await seedUser(null, 'org_owner', 'session');
    const session = stack.api(newcomer.token);
    const onboarded = await session('POST', '/v1/onboarding/organization', {
      org_name: 'Original Inc',
      description: 'as the original contract onboards',
      invitations: [{ email: `invitee-${Date.now()}@example.test`, role: 'readonly_investigator' }],
    });
    ok(onboarded, 201);
    expect(Object.keys(onboarded.body)).toEqual(['org_id']);
    expect((await session('GET', '/v1/onboarding/status')).body).toEqual({ onboarding_completed: 1, org_id: onboarded.body.org_id });
    const me = await session('GET', '/v1/auth/me');
    expect(me.body.user).toMatchObject({ user_id: newcomer.userId, org_id: onboarded.body.org_id, role: 'org_owner' });
    expect(me.body.current_organization).toMatchObject({ org_id: onboarded.body.org_id, role: 'org_owner' });

    for (const body of [{ ttl_seconds: 3600 }, { ttl_seconds: null }, {}]) {
      const issued = await session('POST', '/v1/auth/token', body);
      ok(issued);
      expect(Object.keys(issued.body).sort()).toEqual(['expires_at', 'token', 'token_id']);
    }
    const token = (await session('POST', '/v1/auth/token', { ttl_seconds: 600 })).body.token as string;
    const rotated = await stack.api(token)('POST', '/v1/auth/rotate');
    ok(rotated);
    expect(Object.keys(rotated.body).sort()).toEqual(['expires_at', 'previous_token_grace_until', 'token', 'token_id']);
    expect((await stack.api(token)('GET', '/v1/members')).status).toBe(200);
    const refreshed = await session('POST', '/v1/auth/refresh');
    ok(refreshed);
    expect(typeof refreshed.body.token).toBe('string');
    const current = await stack.api(refreshed.body.token as string)('GET', '/api/auth/get-session');
    expect(current.body).toMatchObject({ session: { id: expect.any(String), userId: newcomer.userId, expiresAt: expect.any(String) } });
  });

  it('agents, assignments, operations, audit, epochs, exports and webhooks', async () => {
    const agentId = uniqueAgentId('v1-rest');
    const key = newKey('k1');
    ok(await engineer('POST', '/v1/agents/register', { agent_id: agentId, display_name: 'Original', responsible_entity: 'team-a', integration_type: 'sdk', keys: [originalKey(key)] }));
    const patched = await engineer('PATCH', `/v1/agents/${agentId}`, { integration_type: 'claudecode' });
    ok(patched);
    expect(patched.body.agent).toMatchObject({ integration_type: 'claudecode' });
    expect(Object.keys((await owner('GET', '/v1/agents')).body)).toEqual(['agents']);

    const chain = new ClientChain(orgId, agentId, key);
    const { record } = await chain.submit(engineer);
    const got = await engineer('GET', `/v1/operations/${record.operation_id}`);
    ok(got);
    expect(got.body).toMatchObject({ operation: { operation_id: record.operation_id }, receipt: { operation_id: record.operation_id } });

    const frozen = await owner('POST', `/v1/agents/${agentId}/freeze`, { reason: 'original freeze' });
    ok(frozen);
    expect(frozen.body).toMatchObject({ agent: { status: 'frozen' }, previous_status: 'active' });
    ok(await owner('POST', `/v1/agents/${agentId}/unfreeze`, { reason: 'original unfreeze' }));

    const members = (await owner('GET', '/v1/members')).body.members as Array<{ user_id: string; role: string }>;
    const engineerId = members.find((member) => member.role === 'integration_engineer')!.user_id;
    const assigned = await owner('POST', `/v1/agents/${agentId}/assignments`, { user_id: engineerId });
    ok(assigned, 201);
    expect(assigned.body).toMatchObject({ agent_id: agentId, user_id: engineerId, org_id: orgId });
    ok(await owner('GET', `/v1/agents/${agentId}/assignments`));
    ok(await engineer('GET', `/v1/members/${engineerId}/agents`));
    ok(await owner('DELETE', `/v1/agents/${agentId}/assignments/${engineerId}`));
    ok(await owner('GET', '/v1/members/invitations'));

    const audit = await owner('POST', '/v1/audit/query', { agent_id: agentId, operation_type: 'test.run', start_time: 0, end_time: Date.now() + 60_000, limit: 500 });
    ok(audit);
    expect(audit.body.total_count).toBe(1);
    ok(await owner('POST', '/v1/audit/query', {}));
    ok(await owner('GET', '/v1/admin/events?limit=100'));
    ok(await engineer('GET', '/v1/epochs'));

    // The range's bounds are the service's own (the original contract leaves them open): one day.
    for (const format of ['json', 'pdf']) {
      const created = await owner('POST', '/v1/exports', { start_time: Date.now() - 86_400_000, end_time: Date.now(), format, agent_id: agentId, operation_type: 'test.run' });
      ok(created, 201);
      expect(created.body.export).toMatchObject({ status: 'queued', store_export_key: null, completed_at: null });
      expect(JSON.parse(created.body.export.query_params)).toMatchObject({ format, agent_id: agentId, operation_type: 'test.run' });
      ok(await owner('GET', `/v1/exports/${created.body.export.export_id}`));
    }
    ok(await owner('GET', '/v1/exports'));

    const webhook = await owner('POST', '/v1/webhooks', { endpoint_url: 'http://127.0.0.1:9/original', events: ['agent.status_changed'], secret: 'an-original-secret-of-32-chars!!' });
    ok(webhook, 201);
    ok(await owner('GET', '/v1/webhooks'));
    const deleted = await owner('DELETE', `/v1/webhooks/${webhook.body.webhook.webhook_id}`);
    ok(deleted);
    expect(deleted.body).toEqual({ success: true });

    const revoked = await owner('POST', `/v1/agents/${agentId}/revoke`, { kid: 'k1', reason: 'original revoke' });
    ok(revoked);
    expect(revoked.body.key).toMatchObject({ kid: 'k1', status: 'revoked' });
    const gone = await owner('DELETE', `/v1/agents/${agentId}`);
    ok(gone);
    expect(gone.body).toEqual({ deleted: true });
  });
});
