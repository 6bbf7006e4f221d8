/**
 * Cross-site request forgery with the session cookie (lambdas/http/same-origin.ts), as a page
 * on another origin of the same site (another port of 127.0.0.1) would send it: a plain form
 * POST (no JSON content type, often no body), with the browser's Sec-Fetch-Site and Origin.
 * Before the fix such a POST minted an API token in the victim's name and retired an agent's
 * key; now every cookie-authenticated write must come from the service's own origin and be
 * JSON. Bearer-token requests are not ambient credentials and are not affected.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { seedOrg, seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '100000' } });
let cookie: string;
let bearer: string;
let agentId: string;

/** What a form on http://127.0.0.1:<another port> makes the browser send. */
const SIBLING = 'http://127.0.0.1:1';
const formPost = { 'sec-fetch-site': 'same-site', origin: SIBLING, 'content-type': 'application/x-www-form-urlencoded' };

beforeAll(async () => {
  const orgId = await seedOrg();
  const owner = await seedUser(orgId, 'org_owner', 'session');
  cookie = `ledger_session=${owner.token}`;
  bearer = owner.token;
  agentId = uniqueAgentId('csrf');
  await registerAgent(stack.api((await seedUser(orgId, 'org_owner')).token), agentId, [newKey('k1'), newKey('k2')]);
});

describe('a cookie-authenticated write from another origin of the same site', () => {
  it('a form POST cannot mint an API token in the victim\'s name: 403 FORBIDDEN', async () => {
    const forged = await stack.call('POST', '/v1/auth/token', { cookies: [cookie], headers: formPost });
    expect(forged.status).toBe(403);
    expect(forged.json.error.code).toBe('FORBIDDEN');
    expect(forged.json.error.message).toMatch(/must come from this service's own pages \(Sec-Fetch-Site is "same-site"\)/);
  });

  it("a form POST cannot retire an agent's key", async () => {
    const forged = await stack.call('POST', `/v1/agents/${agentId}/keys/k1/retire`, { cookies: [cookie], headers: formPost });
    expect(forged.status).toBe(403);
    const agent = await stack.call('GET', `/v1/agents/${agentId}`, { token: bearer });
    expect(agent.json.keys.find((k: { kid: string }) => k.kid === 'k1').status).toBe('active');
  });

  it.each([
    ['cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['same-site with a JSON body', { 'sec-fetch-site': 'same-site', origin: SIBLING }],
    ['no Sec-Fetch-Site and a sibling Origin', { 'sec-fetch-site': null, origin: SIBLING }],
    ['no Sec-Fetch-Site and no Origin', { 'sec-fetch-site': null, origin: null }],
  ] as const)('%s: 403, for PATCH and DELETE too', async (_, headers) => {
    for (const [method, path] of [
      ['POST', '/v1/auth/token'],
      ['PATCH', `/v1/agents/${agentId}`],
      ['DELETE', `/v1/agents/${agentId}/assignments/someone`],
    ] as const) {
      const res = await stack.call(method, path, { cookies: [cookie], headers, ...(method === 'PATCH' ? { body: { description: 'forged' } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json.error.code).toBe('FORBIDDEN');
    }
  });

  it('a same-origin write without the JSON content type is refused even without a body', async () => {
    for (const contentType of [null, 'text/plain', 'application/x-www-form-urlencoded']) {
      const res = await stack.call('POST', '/v1/auth/token', { cookies: [cookie], headers: { 'content-type': contentType } });
      expect(res.status, String(contentType)).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
      expect(res.json.error.message).toMatch(/must have content-type application\/json, even without a body/);
    }
  });
});

describe('what still works', () => {
  it("the console's own writes: Sec-Fetch-Site same-origin, or no Sec-Fetch-Site and the service's own Origin", async () => {
    const variants: Record<string, string | null>[] = [{}, { 'sec-fetch-site': null, origin: stack.baseUrl }, { 'sec-fetch-site': 'none' }];
    for (const headers of variants) {
      const res = await stack.call('POST', '/v1/auth/token', { cookies: [cookie], headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.json.token).toMatch(/^alt_/);
    }
  });

  it('reads with the cookie, and writes with a bearer token from anywhere', async () => {
    expect((await stack.call('GET', `/v1/agents/${agentId}`, { cookies: [cookie], headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
    const bearerWrite = await stack.call('POST', '/v1/auth/token', { token: bearer, headers: formPost });
    expect(bearerWrite.status).toBe(200);
  });
});
