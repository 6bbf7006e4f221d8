/**
 * Smaller hardening rules over HTTP against the local stack (README, Security; PROTOCOL.md,
 * Operation record): each test sends what an attacker would and expects the refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, ClientChain, newKey, registerAgent, uniqueAgentId, type Api } from '../support/ledger-fixtures.js';
import { seedOrg, seedUser } from '../support/seed-identity.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

let stack: TestStack;
let orgId: string;
let token: string;
let api: Api;

beforeAll(async () => {
  stack = await startTestStack();
  orgId = await seedOrg();
  token = (await seedUser(orgId, 'org_owner')).token;
  api = apiClient(stack.baseUrl, token);
});
afterAll(() => stack.stop());

async function agentChain(): Promise<ClientChain> {
  const key = newKey('k1');
  const agentId = uniqueAgentId('hardening');
  await registerAgent(api, agentId, [key]);
  return new ClientChain(orgId, agentId, key);
}

describe('ttl_ms (PROTOCOL.md: at most 24 hours)', () => {
  it('refuses a signed record valid for longer, and accepts exactly 24 hours', async () => {
    const chain = await agentChain();
    const tooLong = await api('POST', '/v1/operations', chain.record({ fields: { ttl_ms: 86_400_001 } }));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('VALIDATION_ERROR');
    expect(tooLong.body.error.message).toMatch(/ttl_ms/);
    expect((await chain.submit(api, { fields: { ttl_ms: 86_400_000 } })).res.status).toBe(200);
  });
});

/** POSTs a raw JSON text (JSON.stringify cannot write a repeated member name). */
async function postRaw(path: string, text: string) {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

describe('repeated member names (I-JSON, RFC 7493 §2.3)', () => {
  it('refuses a body in which two parsers could read two different records', async () => {
    const chain = await agentChain();
    const record = chain.record({ payload: { note: 'original' } });
    const text = JSON.stringify(record);
    const variants = {
      // A second agent_id at the top: JSON.parse keeps the last, other parsers the first.
      top: text.replace('"agent_id":', '"agent_id":"someone-else","agent_id":'),
      // Deep inside the payload.
      nested: text.replace('"note":"original"', '"note":"original","note":"forged"'),
      // The same name spelled with an escape.
      escaped: text.replace('"nonce":', '"n\\u006fnce":"x","nonce":'),
    };
    for (const [name, variant] of Object.entries(variants)) {
      expect(variant, name).not.toBe(text);
      const res = await postRaw('/v1/operations', variant);
      expect(res.status, name).toBe(400);
      expect(res.body.error?.code, name).toBe('VALIDATION_ERROR');
      expect(res.body.error?.message, name).toMatch(/repeats the member name/);
    }
    // Equal names in different objects are fine, and the untouched record is accepted.
    expect((await postRaw('/v1/operations', text)).status).toBe(200);
    const other = await postRaw('/v1/agents/register', JSON.stringify({ agent_id: uniqueAgentId(), integration_type: 'sdk', keys: [{ kid: 'k1', public_key: newKey().publicKey, algorithm: 'ed25519' }] }).replace('"kid":"k1"', '"kid":"k0","kid":"k1"'));
    expect(other.status).toBe(400);
  });
});


describe('the session cookie', () => {
  const withCookie = (path: string, value: string, method = 'GET') =>
    fetch(`${stack.baseUrl}${path}`, { method, headers: { cookie: `ledger_session=${value}` } });

  it('carries session tokens only: an API token in it is no credential', async () => {
    expect(token).toMatch(/^alt_/);
    expect((await fetch(`${stack.baseUrl}/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await withCookie('/v1/auth/me', token)).status).toBe(401);
    expect((await withCookie('/v1/auth/rotate', token, 'POST')).status).toBe(401);
    expect(await (await withCookie('/api/auth/get-session', token)).json()).toBeNull();

    const session = (await seedUser(orgId, 'readonly_investigator', 'session')).token;
    expect((await withCookie('/v1/auth/me', session)).status).toBe(200);
  });
});
