/** lambdas/shared/bounded.ts: calls in flight stay within the limit; mapBounded keeps the items' order. */
import { describe, expect, it } from 'vitest';
import { mapBounded } from '../../lambdas/shared/bounded.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mapBounded', () => {
  it('answers in the order of the items, however the calls finish, with at most `limit` in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const items = [30, 5, 20, 1, 15, 10, 2];
    const results = await mapBounded(items, 3, async (ms, index) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await sleep(ms);
      inFlight -= 1;
      return `${index}:${ms}`;
    });
    expect(results).toEqual(items.map((ms, index) => `${index}:${ms}`));
    expect(most).toBe(3);
  });

  it('rejects with the first failure and starts no call after it', async () => {
    const started: number[] = [];
    const failing = mapBounded([1, 2, 3, 4, 5], 1, async (n) => {
      started.push(n);
      if (n === 2) throw new Error('two');
      return n;
    });
    await expect(failing).rejects.toThrow('two');
    expect(started).toEqual([1, 2]);
  });

  it('answers [] for no items', async () => {
    expect(await mapBounded([], 4, async () => 1)).toEqual([]);
  });
});
