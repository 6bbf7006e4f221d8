// An organization's opt-in to proofs of possession (docs/API.md §2.7 `require_key_proof`,
// §4.3, §4.4): off by default, so /v1's original bodies register keys; switched on by an
// admin (org.update names it), a key without its proof is VALIDATION_ERROR 400 naming the
// field, on both key routes, and writes nothing. No lesser role may switch it, and one
// organization's setting does not reach another.
import { beforeAll, describe, expect, it } from 'vitest';
import { provePossession } from '@agent-ledger/protocol';
import { keyBody, newKey, uniqueAgentId, type TestKey } from '../support/ledger-fixtures.js';
import type { Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
type Members = Record<'org_owner' | 'security_admin' | 'compliance_auditor' | 'integration_engineer' | 'readonly_investigator', Api>;
let orgId: string;
let as: Members;
let otherEngineer: Api;

beforeAll(async () => {
  const seeded = await stack.org('org_owner', 'security_admin', 'compliance_auditor', 'integration_engineer', 'readonly_investigator');
  ({ orgId, api: as } = seeded);
  otherEngineer = (await stack.org('integration_engineer')).api.integration_engineer;
});

const originalKey = (key: TestKey) => ({ kid: key.kid, public_key: key.publicKey, algorithm: 'ed25519' });
const register = (api: Api, agentId: string, key: unknown) => api('POST', '/v1/agents/register', { agent_id: agentId, integration_type: 'sdk', keys: [key] });
const setting = async () => (await as.readonly_investigator('GET', '/v1/organization')).body.organization.require_key_proof as boolean;

describe('require_key_proof', () => {
  it('is off in a new organization, and only org_owner and security_admin may switch it (org.update names it)', async () => {
    expect(await setting()).toBe(false);
    for (const role of ['compliance_auditor', 'integration_engineer', 'readonly_investigator'] as const) {
      const res = await as[role]('PATCH', '/v1/organization', { require_key_proof: true });
      expect(`${role} ${res.status} ${res.body.error?.code}`).toBe(`${role} 403 FORBIDDEN`);
    }
    expect(await setting()).toBe(false);
    for (const body of [{ require_key_proof: 'yes' }, { require_key_proof: null }]) {
      expect((await as.org_owner('PATCH', '/v1/organization', body)).status).toBe(400);
    }

    const on = await as.security_admin('PATCH', '/v1/organization', { require_key_proof: true });
    expect(`${on.status} ${on.body.organization?.require_key_proof}`).toBe('200 true');
    expect(await setting()).toBe(true);
    const [event] = (await as.org_owner('GET', '/v1/admin/events?limit=1')).body.events;
    expect(event).toMatchObject({ action: 'org.update', target_type: 'organization', target_id: orgId });
    expect(JSON.parse(event.details)).toEqual({ require_key_proof: true });

    const off = await as.org_owner('PATCH', '/v1/organization', { require_key_proof: false });
    expect(`${off.status} ${off.body.organization?.require_key_proof}`).toBe('200 false');
  });

  it('when on, refuses a key without its proof on both routes (400 naming the field), takes a valid one, and refuses a wrong one', async () => {
    const before = await register(as.integration_engineer, uniqueAgentId('before-on'), originalKey(newKey('k1')));
    expect(before.status).toBe(200);
    expect((await as.org_owner('PATCH', '/v1/organization', { require_key_proof: true })).status).toBe(200);
    try {
      const agentId = uniqueAgentId('proof-required');
      const bare = await register(as.integration_engineer, agentId, originalKey(newKey('k1')));
      expect(`${bare.status} ${bare.body.error?.code}`).toBe('400 VALIDATION_ERROR');
      expect(bare.body.error.message).toMatch(/^body\.keys\[0\]\.proof: this organization requires/);
      expect((await as.integration_engineer('GET', `/v1/agents/${agentId}`)).status).toBe(404);

      expect((await register(as.integration_engineer, agentId, keyBody(newKey('k1'), orgId, agentId))).status).toBe(200);
      const k2 = newKey('k2');
      const addBare = await as.org_owner('POST', `/v1/agents/${agentId}/keys`, originalKey(k2));
      expect(`${addBare.status} ${addBare.body.error?.code}`).toBe('400 VALIDATION_ERROR');
      expect(addBare.body.error.message).toMatch(/^body\.proof: this organization requires/);
      const wrong = await as.org_owner('POST', `/v1/agents/${agentId}/keys`, { ...originalKey(k2), proof: provePossession(newKey().privateKey, { org_id: orgId, agent_id: agentId, kid: 'k2', registered_at: Date.now() }) });
      expect(`${wrong.status} ${wrong.body.error?.code}`).toBe('400 VALIDATION_ERROR');
      expect((await as.org_owner('POST', `/v1/agents/${agentId}/keys`, keyBody(k2, orgId, agentId))).status).toBe(200);
      expect((await as.integration_engineer('GET', `/v1/agents/${agentId}`)).body.keys.map((k: { kid: string }) => k.kid)).toEqual(['k1', 'k2']);

      // Another organization keeps its own setting: off.
      expect((await register(otherEngineer, uniqueAgentId('other-org'), originalKey(newKey('k1')))).status).toBe(200);
    } finally {
      expect((await as.org_owner('PATCH', '/v1/organization', { require_key_proof: false })).status).toBe(200);
    }
    // Off again: the original body registers.
    expect((await register(as.integration_engineer, uniqueAgentId('after-off'), originalKey(newKey('k1')))).status).toBe(200);
  });
});
