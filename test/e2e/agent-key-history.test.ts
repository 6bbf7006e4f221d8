// Key history over HTTP (docs/PROTOCOL.md "Key events", "Proof of possession"; docs/API.md
// §4.3): registration and key addition with a proof by another key, or with one made for
// another organization, are VALIDATION_ERROR and write nothing; without a proof the key is
// registered unproven and its event says so (`proof: null`); every key change appends its
// event to the organization's key history, chained.
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GENESIS_KEY_EVENT, keyEventHash, keyThumbprint, provePossession } from '@agent-ledger/protocol';
import { listKeyEvents } from '../../lambdas/store/key-log.js';
import { beforeRequest } from '../support/before-request.js';
import type { Loose } from '../support/http-client.js';
import { keyBody, newKey, uniqueAgentId } from '../support/ledger-fixtures.js';
import { type Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
let orgId: string;
let otherOrgId: string;
let actor: string;
let api: Api;

beforeAll(async () => {
  const seeded = await stack.org('org_owner');
  ({ orgId, api: { org_owner: api } } = seeded);
  actor = seeded.users.org_owner.userId;
  otherOrgId = (await stack.org('org_owner')).orgId;
});

afterEach(() => {
  vi.restoreAllMocks();
});

const register = (agentId: string, key: unknown) => api('POST', '/v1/agents/register', { agent_id: agentId, integration_type: 'sdk', keys: [key] });

describe('proof of possession', () => {
  it('a registration with one by another key, made for another organization or too old is VALIDATION_ERROR 400 and writes nothing', async () => {
    const key = newKey('k1');
    const agentId = uniqueAgentId('pop');
    const byOther = { ...keyBody(key, orgId, agentId), proof: provePossession(newKey().privateKey, { org_id: orgId, agent_id: agentId, kid: 'k1', registered_at: Date.now() }) };
    const forOtherOrg = keyBody(key, otherOrgId, agentId);
    const stale = { ...keyBody(key, orgId, agentId), proof: provePossession(key.privateKey, { org_id: orgId, agent_id: agentId, kid: 'k1', registered_at: Date.now() - 3_600_000 }) };
    for (const [name, body, message] of [
      ['by another key', byOther, /not a signature by key k1/],
      ['for another organization', forOtherOrg, /not a signature by key k1/],
      ['an hour old', stale, /more than 5 minutes/],
    ] as const) {
      const res = await register(agentId, body);
      expect(`${res.status} ${res.body.error?.code}`, name).toBe('400 VALIDATION_ERROR');
      expect(res.body.error.message, name).toMatch(message);
    }
    expect((await api('GET', `/v1/agents/${agentId}`)).status).toBe(404);
    expect((await listKeyEvents(orgId)).filter((e) => e.agent_id === agentId)).toEqual([]);
  });

  it('a registration and a key addition without one are stored, their events recording proof: null', async () => {
    const agentId = uniqueAgentId('pop-none');
    const { proof: _k1, ...k1 } = keyBody(newKey('k1'), orgId, agentId);
    const { proof: _k2, ...k2 } = keyBody(newKey('k2'), orgId, agentId);
    expect((await register(agentId, k1)).status).toBe(200);
    expect((await api('POST', `/v1/agents/${agentId}/keys`, k2)).status).toBe(200);
    const mine = (await listKeyEvents(orgId)).filter((e) => e.agent_id === agentId);
    expect(mine.map((e) => `${e.event} ${e.kid} ${e.public_key} ${JSON.stringify(e.proof)}`)).toEqual([`register k1 ${k1.public_key} null`, `add k2 ${k2.public_key} null`]);
  });

  it('require_key_proof switched on while an unproven registration is on its way refuses it, writing nothing', async () => {
    const agentId = uniqueAgentId('pop-race');
    const { proof: _none, ...bare } = keyBody(newKey('k1'), orgId, agentId);
    // Between the registration's read of the setting and its commit, an admin switches it on.
    const registering = (c: Loose) => c instanceof TransactWriteCommand && JSON.stringify(c.input).includes(`"agent_id":"${agentId}"`);
    const moment = beforeRequest(registering, () => api('PATCH', '/v1/organization', { require_key_proof: true }));
    try {
      const res = await register(agentId, bare);
      expect(moment.ran()).toBe(true);
      expect(`${res.status} ${res.body.error?.code}`).toBe('400 VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/body\.keys\[0\]\.proof: this organization requires/);
    } finally {
      expect((await api('PATCH', '/v1/organization', { require_key_proof: false })).status).toBe(200);
    }
    expect((await api('GET', `/v1/agents/${agentId}`)).status).toBe(404);
    expect((await listKeyEvents(orgId)).filter((e) => e.agent_id === agentId)).toEqual([]);
  });

  it('a key addition with a proof needs its own', async () => {
    const agentId = uniqueAgentId('pop-add');
    expect((await register(agentId, keyBody(newKey('k1'), orgId, agentId))).status).toBe(200);
    const k2 = newKey('k2');
    const signedForK3 = { ...keyBody(k2, orgId, agentId), proof: provePossession(k2.privateKey, { org_id: orgId, agent_id: agentId, kid: 'k3', registered_at: Date.now() }) };
    const res = await api('POST', `/v1/agents/${agentId}/keys`, signedForK3);
    expect(`${res.status} ${res.body.error?.code}`).toBe('400 VALIDATION_ERROR');
    expect((await api('GET', `/v1/agents/${agentId}`)).body.keys.map((k: { kid: string }) => k.kid)).toEqual(['k1']);
  });
});

describe('key events', () => {
  it('registration, addition, retirement, revocation and deletion each append a chained event naming the key by thumbprint', async () => {
    const agentId = uniqueAgentId('history');
    const [k1, k2] = [newKey('k1'), newKey('k2')];
    expect((await register(agentId, keyBody(k1, orgId, agentId))).status).toBe(200);
    expect((await api('POST', `/v1/agents/${agentId}/keys`, keyBody(k2, orgId, agentId))).status).toBe(200);
    expect((await api('POST', `/v1/agents/${agentId}/keys/k1/retire`, { reason: 'rotated' })).status).toBe(200);
    expect((await api('POST', `/v1/agents/${agentId}/revoke`, { kid: 'k1', reason: 'lost laptop' })).status).toBe(200);
    expect((await api('DELETE', `/v1/agents/${agentId}`)).status).toBe(200);
    const all = await listKeyEvents(orgId);
    all.forEach((e, i) => {
      expect(e.key_index).toBe(i);
      expect(e.prev_event_hash).toBe(i === 0 ? GENESIS_KEY_EVENT : keyEventHash(all[i - 1]!));
    });
    const mine = all.filter((e) => e.agent_id === agentId);
    expect(mine.map((e) => `${e.event} ${e.kid}`)).toEqual(['register k1', 'add k2', 'retire k1', 'revoke k1', 'delete k1', 'delete k2']);
    expect(mine.every((e) => e.actor === actor && e.org_id === orgId)).toBe(true);
    expect(mine[0]!.thumbprint).toBe(keyThumbprint(k1.publicKey));
    expect(mine[0]!.proof).not.toBeNull();
    expect(mine[2]!.public_key).toBeNull();
    // Another organization's history holds none of it.
    expect((await listKeyEvents(otherOrgId)).some((e) => e.agent_id === agentId)).toBe(false);
  });
});

describe('many key changes of one organization at once', () => {
  // Every key change appends at the organization's one key-history head; a burst of them
  // (a provisioning script, an incident response revoking a fleet) must all succeed, not
  // lose a lottery for the head and come back 409.
  it('20 registrations, then 20 key retirements, then 20 revocations in parallel all succeed, in one unbroken chain', { timeout: 120_000 }, async () => {
    const agentIds = Array.from({ length: 20 }, () => uniqueAgentId('burst'));
    const statuses = async (requests: Promise<{ status: number; body: { error?: { message: string } } }>[]) =>
      (await Promise.all(requests)).map((res) => `${res.status}${res.body.error ? ` ${res.body.error.message}` : ''}`);
    const ok = agentIds.map(() => '200');
    expect(await statuses(agentIds.map((id) => register(id, keyBody(newKey('k1'), orgId, id))))).toEqual(ok);
    expect(await statuses(agentIds.map((id) => api('POST', `/v1/agents/${id}/keys/k1/retire`, { reason: 'rotated' })))).toEqual(ok);
    expect(await statuses(agentIds.map((id) => api('POST', `/v1/agents/${id}/revoke`, { reason: 'fleet compromised' })))).toEqual(ok);
    const all = await listKeyEvents(orgId);
    all.forEach((e, i) => {
      expect(e.key_index).toBe(i);
      expect(e.prev_event_hash).toBe(i === 0 ? GENESIS_KEY_EVENT : keyEventHash(all[i - 1]!));
    });
    for (const id of agentIds) expect(all.filter((e) => e.agent_id === id).map((e) => e.event)).toEqual(['register', 'retire', 'revoke']);
  });

  // A fleet's provisioning script registers a hundred agents at once: under the default quota
  // of new keys per member (docs/API.md §8) every one succeeds, in one chain. (200 at once pass
  // alone in about 8 s; under the whole suite's load some of them have answered 500, which is
  // not understood yet: docs/COST.md "Key changes".)
  it('100 concurrent registrations in one organization all succeed, in one unbroken chain', { timeout: 240_000 }, async () => {
    const burst = await stack.org('org_owner');
    const ids = Array.from({ length: 100 }, () => uniqueAgentId('fleet'));
    const answers = await Promise.all(
      ids.map((id) => burst.api.org_owner('POST', '/v1/agents/register', { agent_id: id, integration_type: 'sdk', keys: [keyBody(newKey('k1'), burst.orgId, id)] })),
    );
    expect(answers.map((res) => `${res.status}${res.body.error ? ` ${res.body.error.message}` : ''}`)).toEqual(ids.map(() => '200'));
    const events = await listKeyEvents(burst.orgId);
    expect(events.map((e) => e.key_index)).toEqual(ids.map((_, i) => i));
    expect(new Set(events.map((e) => e.agent_id))).toEqual(new Set(ids));
  });
});
