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
