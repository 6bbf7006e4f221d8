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

const stack = useLedgerStack();
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
