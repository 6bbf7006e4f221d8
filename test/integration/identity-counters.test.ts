// The DynamoDB counters behind the rate limit and the sign-in throttle, against DynamoDB
// Local with an injected clock (domain/rate-limit/*, adapters/aws/rate-limiter.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../lambdas/domain/auth/caller.js';
import { LedgerError } from '../../lambdas/domain/errors.js';
import { enforceRequestRate } from '../../lambdas/domain/rate-limit/request-rate.js';
import {
  MAX_FAILURES,
  releaseSignInAttempt,
  reserveSignInAttempt,
} from '../../lambdas/domain/rate-limit/sign-in-throttle.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ env: { LEDGER_RATE_LIMIT_RPS: '3' } });
});
afterAll(() => stack?.stop());

const caller = (orgId: string | null, userId = crypto.randomUUID()): Caller => ({
  userId,
  email: 'x@example.test',
  displayName: 'X',
  emailVerified: true,
  orgId,
  role: 'org_owner',
  tokenKind: 'api',
  tokenId: 't',
});

async function outcome(promise: Promise<void>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof LedgerError && error.code === 'RATE_LIMITED') return `429 retry-after=${error.headers['retry-after']}`;
    throw error;
  }
}

describe('request rate (rps 3: 6 per second, 30 per 10 s)', () => {
  const windowStart = Math.ceil(Date.now() / 10_000) * 10_000 + 100_000;

  it('counts per organization across concurrent requests and lets the next second through', async () => {
    const who = caller(crypto.randomUUID());
    const results = await Promise.all(Array.from({ length: 8 }, () => outcome(enforceRequestRate(who, windowStart + 500))));
    expect(results.filter((result) => result === 'ok')).toHaveLength(6);
    expect(results.filter((result) => result === '429 retry-after=1')).toHaveLength(2);
    expect(await outcome(enforceRequestRate(who, windowStart + 1500))).toBe('ok');
    // Same org, other user: same count. Other org: its own.
    expect(await outcome(enforceRequestRate({ ...who, userId: 'other-user' }, windowStart + 1600))).toBe('ok');
    expect(await outcome(enforceRequestRate(caller(crypto.randomUUID()), windowStart + 900))).toBe('ok');
  });

  it('holds the sustained rate over the 10-second window, with Retry-After to its end', async () => {
    const who = caller(crypto.randomUUID());
    for (let second = 0; second < 5; second += 1) {
      for (let i = 0; i < 6; i += 1) expect(await outcome(enforceRequestRate(who, windowStart + second * 1000 + 10))).toBe('ok');
    }
    // 30 used in 5 s: the rest of the window is closed, even in a fresh second.
    expect(await outcome(enforceRequestRate(who, windowStart + 5_200))).toBe('429 retry-after=5');
    expect(await outcome(enforceRequestRate(who, windowStart + 10_000))).toBe('ok');
  });

  it('counts users without an organization per user', async () => {
    const first = caller(null);
    for (let i = 0; i < 6; i += 1) await enforceRequestRate(first, windowStart + 20_100);
    expect(await outcome(enforceRequestRate(first, windowStart + 20_200))).toMatch(/^429/);
    expect(await outcome(enforceRequestRate(caller(null), windowStart + 20_200))).toBe('ok');
  });
});

describe('sign-in throttle (5 failures per 15 minutes per email)', () => {
  const t0 = Math.ceil(Date.now() / 900_000) * 900_000 + 900_000;

  it('refuses after 5 attempts until the window ends, per email, case-insensitively', async () => {
    const email = `throttle-${crypto.randomUUID()}@example.test`;
    for (let i = 0; i < MAX_FAILURES; i += 1) await reserveSignInAttempt(email, t0 + i);
    await expect(reserveSignInAttempt(email.toUpperCase(), t0 + 60_000)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      headers: { 'retry-after': String(900 - 60) },
    });
    await expect(reserveSignInAttempt(`other-${email}`, t0 + 60_000)).resolves.toBeUndefined();
    await expect(reserveSignInAttempt(email, t0 + 900_000)).resolves.toBeUndefined();
  });

  it('a successful sign-in gives back its own attempt, not the failures before it', async () => {
    const email = `release-${crypto.randomUUID()}@example.test`;
    for (let i = 0; i < 10; i += 1) {
      await reserveSignInAttempt(email, t0);
      await releaseSignInAttempt(email, t0);
    }
    for (let i = 0; i < MAX_FAILURES - 1; i += 1) await reserveSignInAttempt(email, t0);
    await reserveSignInAttempt(email, t0);
    await releaseSignInAttempt(email, t0);
    await reserveSignInAttempt(email, t0);
    await expect(reserveSignInAttempt(email, t0)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('hands out exactly 5 attempts to 32 concurrent ones', async () => {
    const email = `race-${crypto.randomUUID()}@example.test`;
    const outcomes = await Promise.allSettled(Array.from({ length: 32 }, () => reserveSignInAttempt(email, t0)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(MAX_FAILURES);
  });
});
