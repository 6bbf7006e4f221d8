// First-come turns per key within one process (lambdas/shared/turns.ts): one holder at a time
// per key, in the order joined, each handing a value to the next; a failed or abandoned turn
// does not hold up the next; another key does not wait; a turn that does not come by its
// deadline resolves null. The key history's changes take turns with it (key-log.ts, tested
// against DynamoDB Local in test/integration/key-log-turns.test.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TurnQueue } from '../../lambdas/shared/turns.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const later = () => Date.now() + 60_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('TurnQueue', () => {
  it('gives one holder at a time per key, in the order joined, past a failed one, handing each value on', async () => {
    const queue = new TurnQueue<string>();
    const log: string[] = [];
    let running = 0;
    const holder = async (name: string, ms: number, handOver: string | undefined, fail = false) => {
      const turn = queue.join('org-a');
      try {
        const ready = await turn.ready(later());
        running += 1;
        expect(running).toBe(1);
        log.push(`start ${name} after ${ready?.handedOver ?? 'nothing'}`);
        await tick(ms);
        running -= 1;
        if (fail) throw new Error(`${name} failed`);
        return name;
      } finally {
        turn.end(handOver);
      }
    };
    const results = await Promise.allSettled([holder('1', 30, 'head-1'), holder('2', 5, undefined, true), holder('3', 1, 'head-3'), holder('4', 1, undefined)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['1', '2 failed', '3', '4']);
    expect(log).toEqual(['start 1 after nothing', 'start 2 after head-1', 'start 3 after nothing', 'start 4 after head-3']);
  });

  it('does not make another key wait', async () => {
    const queue = new TurnQueue<string>();
    const slow = queue.join('org-slow');
    await slow.ready(later());
    await expect(queue.join('org-fast').ready(later())).resolves.toEqual({ handedOver: undefined });
    slow.end('x');
  });

  it('resolves null at the deadline and not before; the next still waits for the turns before the one that gave up', async () => {
    vi.useFakeTimers();
    const queue = new TurnQueue<string>();
    const first = queue.join('org-stuck');
    await first.ready(Date.now() + 1);
    const second = queue.join('org-stuck');
    let outcome: unknown = 'pending';
    void second.ready(Date.now() + 8_000).then((ready) => (outcome = ready));
    await vi.advanceTimersByTimeAsync(7_900);
    expect(outcome).toBe('pending');
    await vi.advanceTimersByTimeAsync(101);
    expect(outcome).toBeNull();
    second.end();
    // The second gave up, but the first still holds its turn: the third must wait for it.
    const third = queue.join('org-stuck');
    let thirdReady: unknown = 'pending';
    void third.ready(Date.now() + 60_000).then((ready) => (thirdReady = ready));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(thirdReady).toBe('pending');
    first.end('head-1');
    await vi.advanceTimersByTimeAsync(0);
    // What the first handed over does not pass through the one that gave up (it handed nothing).
    expect(thirdReady).toEqual({ handedOver: undefined });
    third.end();
  });

  it('counts only the first end of a turn', async () => {
    const queue = new TurnQueue<string>();
    const first = queue.join('k');
    const second = queue.join('k');
    first.end('a');
    first.end('b');
    await expect(second.ready(later())).resolves.toEqual({ handedOver: 'a' });
  });
});
