// The request rate limit across many processes (domain/rate-limit/request-rate.ts): in AWS
// every route is a function of its own, so one client's requests in one second land on as
// many Lambda containers as routes it calls. Each fresh process is made by forgetting the
// reservations of the last one (what a process's death does to them).
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../lambdas/domain/auth/caller.js';
import { enforceRequestRate, resetRequestRateForTests } from '../../lambdas/domain/rate-limit/request-rate.js';
import { LedgerError } from '../../lambdas/shared/errors.js';
import { useLedgerStack } from '../support/ledger-stack.js';

// rps 100: at most 200 requests in one second, reserved up to 10 at a time.
useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '100' } });

const orgCaller = (): Pick<Caller, 'orgId' | 'userId'> => ({ orgId: crypto.randomUUID(), userId: crypto.randomUUID() });

async function allowed(request: Promise<void>): Promise<boolean> {
  try {
    await request;
    return true;
  } catch (error) {
    if (error instanceof LedgerError && error.code === 'RATE_LIMITED') return false;
    throw error;
  }
}

describe('request rate across processes (rps 100: 200 in a second)', () => {
  const second = Math.ceil(Date.now() / 10_000) * 10_000 + 200_000;

  it('lets one request from each of 60 processes through in one second', async () => {
    // A batch of 10 per process reserved the burst away after 20 processes: 40 refused of 60 requests.
    const who = orgCaller();
    const results: boolean[] = [];
    for (let process = 0; process < 60; process += 1) {
      resetRequestRateForTests();
      results.push(await allowed(enforceRequestRate(who, second + 100 + process)));
    }
    expect(results.filter((ok) => !ok)).toHaveLength(0);
  });

  it('still lets no more than 200 through in a second, however many processes share them', async () => {
    const who = orgCaller();
    let granted = 0;
    for (let process = 0; process < 6; process += 1) {
      resetRequestRateForTests();
      for (let i = 0; i < 50; i += 1) if (await allowed(enforceRequestRate(who, second + 2_100 + process))) granted += 1;
    }
    // 300 asked for: 200 at most; each process loses at most what it reserved and did not use (under 10).
    expect(granted).toBeLessThanOrEqual(200);
    expect(granted).toBeGreaterThan(200 - 6 * 10);
    resetRequestRateForTests();
  });
});
