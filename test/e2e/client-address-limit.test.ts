/**
 * Unauthenticated sign-up and sign-in are limited per client address too (SECURITY.md, Rules the service enforces;
 * domain/rate-limit/client-address-throttle.ts): spraying one password over many accounts,
 * or creating accounts in bulk, from one address runs into 429 although no single email
 * reaches its own limit.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sha256B64u } from '@agent-ledger/protocol';
import { describe, expect, it } from 'vitest';
import { counterKeys } from '../../lambdas/store/rate-counters.js';
import { config } from '../../lambdas/config.js';
import { CLIENT_LIMITS, CLIENT_WINDOW_SECONDS, countClientAttempt, type UnauthenticatedAction } from '../../lambdas/domain/rate-limit/client-address-throttle.js';
import { windowAt } from '../../lambdas/domain/rate-limit/fixed-window.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { uniqueEmail } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
const call = stack.call;


/** Records `count` earlier attempts of `action` from the test's own address, in this window and the next. */
async function alreadyAttempted(action: UnauthenticatedAction, count: number): Promise<void> {
  const hash = sha256B64u(new TextEncoder().encode('127.0.0.1'));
  for (const at of [Date.now(), Date.now() + CLIENT_WINDOW_SECONDS * 1000]) {
    const window = windowAt(at, CLIENT_WINDOW_SECONDS * 1000);
    await dynamo().send(
      new PutCommand({ TableName: config().tableName, Item: { ...counterKeys.clientAddress(action, hash, window.start), attempts: count, expires_at_s: window.expiresAtS } }),
    );
  }
}

describe('per-address limits', () => {
  it('count every attempt and refuse past the limit, per action and per address', async () => {
    const t0 = Math.ceil(Date.now() / 600_000) * 600_000 + 600_000;
    for (let i = 0; i < CLIENT_LIMITS['sign-up']; i += 1) await countClientAttempt('sign-up', '203.0.113.7', t0);
    await expect(countClientAttempt('sign-up', '203.0.113.7', t0 + 60_000)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      headers: { 'retry-after': String(CLIENT_WINDOW_SECONDS - 60) },
    });
    await expect(countClientAttempt('sign-in', '203.0.113.7', t0)).resolves.toBeUndefined();
    await expect(countClientAttempt('sign-up', '203.0.113.8', t0)).resolves.toBeUndefined();
    await expect(countClientAttempt('sign-up', '203.0.113.7', t0 + CLIENT_WINDOW_SECONDS * 1000)).resolves.toBeUndefined();
  });

  it('stop password spraying over HTTP once the address used up its sign-ins, even with a right password', async () => {
    const email = uniqueEmail('sprayed');
    expect((await call('POST', '/api/auth/sign-up/email', { body: { name: 'S', email, password: 'password-1234' } })).status).toBe(200);
    // Sprayed: one guess each at many accounts, none reaching its per-email limit.
    await alreadyAttempted('sign-in', CLIENT_LIMITS['sign-in'] - 1);
    expect((await call('POST', '/api/auth/sign-in/email', { body: { email: uniqueEmail('other'), password: 'Summer2024!' } })).status).toBe(401);
    const refused = await call('POST', '/api/auth/sign-in/email', { body: { email, password: 'password-1234' } });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('stop bulk sign-ups from one address', async () => {
    await alreadyAttempted('sign-up', CLIENT_LIMITS['sign-up']);
    const refused = await call('POST', '/api/auth/sign-up/email', { body: { name: 'Bulk', email: uniqueEmail('bulk'), password: 'password-1234' } });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('RATE_LIMITED');
  });
});
