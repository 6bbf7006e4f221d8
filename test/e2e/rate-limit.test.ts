/**
 * The per-organization rate limit (docs/API.md §7 RATE_LIMITED, §8),
 * over HTTP. LEDGER_RATE_LIMIT_RPS=5 here: at most 10 requests in any one second (the burst)
 * and 50 per 10-second window (domain/rate-limit/request-rate.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http-client.js';
import { seedOrg, seedUser, type SeededUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '5' } });
let alice: SeededUser;
let bob: SeededUser;
let other: SeededUser;

beforeAll(async () => {
  const org = await seedOrg();
  alice = await seedUser(org, 'org_owner');
  bob = await seedUser(org, 'readonly_investigator');
  other = await seedUser(await seedOrg(), 'org_owner');
  // Load the handlers once (another organization's count), so the timed bursts below take
  // milliseconds and stay inside one second.
  await http(stack.baseUrl, 'GET', '/v1/members', { token: other.token });
  await http(stack.baseUrl, 'GET', '/v1/admin/events', { token: other.token });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for the start of the next second, so a burst lands inside one second. */
async function startOfSecond(): Promise<void> {
  await sleep(1000 - (Date.now() % 1000) + 20);
}

describe('per-organization rate limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After over the limit, counts the whole organization, and lets requests through again after Retry-After', async () => {
    await startOfSecond();
    // 12 requests from two members of one organization, at once: the burst of 10 passes.
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, index) => http(stack.baseUrl, 'GET', '/v1/members', { token: index % 2 ? alice.token : bob.token })),
    );
    const statuses = burst.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    const limited = burst.filter((res) => res.status === 429);
    expect(limited).toHaveLength(2);
    for (const res of limited) {
      expect(res.json.error.code).toBe('RATE_LIMITED');
      expect(res.headers.get('retry-after')).toBe('1');
    }
    // Another organization is not affected.
    expect((await http(stack.baseUrl, 'GET', '/v1/members', { token: other.token })).status).toBe(200);

    await sleep(Number(limited[0]!.headers.get('retry-after')) * 1000);
    expect((await http(stack.baseUrl, 'GET', '/v1/members', { token: alice.token })).status).toBe(200);
  });

  it('applies to every authenticated route, including refused ones, but not to public routes', async () => {
    await startOfSecond();
    const responses = await Promise.all(
      Array.from({ length: 11 }, () => http(stack.baseUrl, 'GET', '/v1/admin/events', { token: bob.token })),
    );
    // readonly_investigator may not read the admin log: 403 while under the limit, 429 over it.
    expect(responses.map((res) => res.status).sort()).toEqual([...Array(10).fill(403), 429]);
    expect((await http(stack.baseUrl, 'GET', '/v1/health')).status).toBe(200);
  });
});
