// An organization's key changes in one process take turns (lambdas/domain/agents/optimistic.ts):
// one at a time per organization, in the order they started; a failed change does not hold
// up the next; another organization does not wait.
import { describe, expect, it } from 'vitest';
import { inKeyLogTurn } from '../../lambdas/domain/agents/optimistic.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('inKeyLogTurn', () => {
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
      inKeyLogTurn('org-a', change('1', 30)),
      inKeyLogTurn('org-a', change('2', 5, true)),
      inKeyLogTurn('org-a', change('3', 1)),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['1', '2 failed', '3']);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('does not make another organization wait', async () => {
    let releaseA!: () => void;
    const a = inKeyLogTurn('org-slow', () => new Promise<string>((resolve) => (releaseA = () => resolve('a'))));
    await expect(inKeyLogTurn('org-fast', async () => 'b')).resolves.toBe('b');
    releaseA();
    await expect(a).resolves.toBe('a');
  });
});
