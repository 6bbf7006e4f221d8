/**
 * How fast changes reach submissions on a process whose caches are warm (docs/COST.md,
 * Caches; domain/ledger/submission-state.ts, domain/auth/caller-lookup.ts):
 *
 * - a frozen agent, a revoked key: at the very next submission (the agent item is read on
 *   every submission, and every key change bumps the keys_version it is checked against);
 * - an API token of a member removed or demoted: within LEDGER_CALLER_CACHE_MS on a process
 *   that did not make the change itself, at once on the one that did;
 * - a rotated token: at the end of its grace period, to the second.
 *
 * The other process is played by dropping this process's own invalidation
 * (forgetCachedCallers), which is exactly what another Lambda container does not receive.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as callerLookup from '../../lambdas/domain/auth/caller-lookup.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import type { Api } from '../support/http-client.js';
import { seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const CACHE_MS = 1_500;
const stack = useLedgerStack({ env: { LEDGER_CALLER_CACHE_MS: String(CACHE_MS), LEDGER_TOKEN_GRACE_SECONDS: '3', LEDGER_RATE_LIMIT_RPS: '1000' } });
let orgId: string;
let admin: Api;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  ({ orgId, api: { org_owner: admin } } = await stack.org('org_owner'));
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A refused caller: no longer authenticated (401), or no longer in the organization's roles (403). */
const refused = (status: number) => expect([401, 403]).toContain(status);

async function agentFor(api: Api): Promise<ClientChain> {
  const agentId = uniqueAgentId('cache');
  const key = newKey('k1');
  await registerAgent(admin, agentId, [key, newKey('k2')]);
  const chain = new ClientChain(orgId, agentId, key);
  // Warm every cache of the submission path.
  expect((await chain.submit(api)).res.status).toBe(200);
  return chain;
}

describe('agent state: at the very next submission', () => {
  it('a frozen agent is refused at once, and accepted again at once after unfreezing', async () => {
    const chain = await agentFor(admin);
    expect((await admin('POST', `/v1/agents/${chain.agentId}/freeze`, { reason: 'incident' })).status).toBe(200);
    expect((await chain.submit(admin)).res.body.error.code).toBe('AGENT_FROZEN');
    expect((await admin('POST', `/v1/agents/${chain.agentId}/unfreeze`, { reason: 'resolved' })).status).toBe(200);
    expect((await chain.submit(admin)).res.status).toBe(200);
  });

  it('a revoked key is refused at once, although the key was cached', async () => {
    const chain = await agentFor(admin);
    expect((await admin('POST', `/v1/agents/${chain.agentId}/revoke`, { kid: 'k1', reason: 'leaked' })).status).toBe(200);
    const { res } = await chain.submit(admin);
    expect(`${res.status} ${res.body.error?.code}`).toBe('403 KEY_REVOKED');
  });
});

describe('API tokens: within LEDGER_CALLER_CACHE_MS', () => {
  it('a removed member’s token: refused at once by the process that removed them, within the cache lifetime by another', async () => {
    const member = await seedUser(orgId, 'integration_engineer');
    const api = stack.api(member.token);
    const chain = await agentFor(api);
    // Another process: it never hears of the removal.
    vi.spyOn(callerLookup, 'forgetCachedCallers').mockImplementation(() => {});
    expect((await admin('DELETE', `/v1/members/${member.userId}`)).status).toBe(200);
    const removedAt = Date.now();
    const early = await chain.submit(api);
    // Still acting on what it read before the removal (the cache is warm)...
    if (Date.now() - removedAt < CACHE_MS - 200) expect(early.res.status).toBe(200);
    // ...but never past the cache lifetime.
    await sleep(Math.max(0, removedAt + CACHE_MS + 50 - Date.now()));
    refused((await chain.submit(api)).res.status);
    vi.restoreAllMocks();

    // The process that makes the change drops its entries at once.
    const other = await seedUser(orgId, 'integration_engineer');
    const otherApi = stack.api(other.token);
    const otherChain = await agentFor(otherApi);
    expect((await admin('PATCH', `/v1/members/${other.userId}`, { role: 'readonly_investigator' })).status).toBe(200);
    refused((await otherChain.submit(otherApi)).res.status);
  });

  it('a rotated token works through its grace period and stops at its end, cached or not', async () => {
    const member = await seedUser(orgId, 'integration_engineer');
    const chain = await agentFor(stack.api(member.token));
    const rotated = await stack.call('POST', '/v1/auth/rotate', { token: member.token });
    expect(rotated.status).toBe(200);
    expect((await chain.submit(stack.api(member.token))).res.status).toBe(200);
    await sleep(rotated.json.previous_token_grace_until * 1000 - Date.now() + 50);
    expect((await chain.submit(stack.api(member.token))).res.status).toBe(401);
    expect((await chain.submit(stack.api(rotated.json.token))).res.status).toBe(200);
  });
});
