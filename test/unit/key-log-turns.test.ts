// An organization's key changes in one process take turns (lambdas/domain/agents/optimistic.ts):
// one at a time per organization, in the order they were asked for; a failed change does not
// hold up the next; another organization does not wait; a change whose turn does not come
// within the budget is a 409 that never ran.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keyLogChange, RETRY } from '../../lambdas/domain/agents/optimistic.js';
import { LedgerError } from '../../lambdas/shared/errors.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
  vi.useRealTimers();
});

describe('keyLogChange', () => {
  it("runs one organization's changes one at a time, in order, past a failed one", async () => {
    const log: string[] = [];
    let running = 0;
    const change = (name: string, ms: number, fail = false) => async () => {
      running += 1;
      expect(running).toBe(1);
      log.push(`start ${name}`);
      await tick(ms);
      log.push(`end ${name}`);
      running -= 1;
      if (fail) throw new Error(`${name} failed`);
      return name;
    };
    const results = await Promise.allSettled([
      keyLogChange('org-a', change('1', 30)),
      keyLogChange('org-a', change('2', 5, true)),
      keyLogChange('org-a', change('3', 1)),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['1', '2 failed', '3']);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('runs a step again while it answers RETRY (another process took the head)', async () => {
    let calls = 0;
    await expect(keyLogChange('org-retry', async () => (++calls < 3 ? RETRY : 'committed'))).resolves.toBe('committed');
    expect(calls).toBe(3);
  });

  it('does not make another organization wait', async () => {
    let releaseA!: () => void;
    const a = keyLogChange('org-slow', () => new Promise<string>((resolve) => (releaseA = () => resolve('a'))));
    await expect(keyLogChange('org-fast', async () => 'b')).resolves.toBe('b');
    releaseA();
    await expect(a).resolves.toBe('a');
  });

  it('answers 409 without running a change whose turn does not come within 8 s, and not before', async () => {
    vi.useFakeTimers();
    let releaseFirst!: () => void;
    const first = keyLogChange('org-stuck', () => new Promise<string>((resolve) => (releaseFirst = () => resolve('first'))));
    let ran = false;
    const second = keyLogChange('org-stuck', async () => {
      ran = true;
      return 'second';
    });
    let settled = false;
    const outcome = second.then(
      () => null,
      (error: unknown) => error,
    ).finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(7_900);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(101);
    const error = await outcome;
    expect(error).toBeInstanceOf(LedgerError);
    expect(`${(error as LedgerError).status} ${(error as LedgerError).code}`).toBe('409 VALIDATION_ERROR');
    expect(ran).toBe(false);
    releaseFirst();
    await expect(first).resolves.toBe('first');
  });
});
