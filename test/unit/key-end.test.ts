// When a change that ends keys says they ended (lambdas/domain/agents/key-end.ts), and the agent's
// latest accepted created_at that its transaction is conditioned on (store/operations.ts):
// never at or before a record the agent had accepted, whatever the clocks of the instances
// that accepted them said.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keyEndClock } from '../../lambdas/domain/agents/key-end.js';
import { latestCreatedAt } from '../../lambdas/store/operations.js';
import type { AgentItem } from '../../lambdas/store/ledger-items.js';

const agent = (latest?: number) => ({ agent_id: 'a', ...(latest === undefined ? {} : { latest_created_at: latest }) }) as AgentItem;

afterEach(() => {
  vi.useRealTimers();
});

describe('keyEndClock', () => {
  it("takes the request's time when every accepted record is older, or none was accepted", () => {
    expect(keyEndClock(1_000)(agent(999))).toBe(1_000);
    expect(keyEndClock(1_000)(agent())).toBe(1_000);
  });

  it('ends after a record accepted at or after the request started', () => {
    expect(keyEndClock(1_000)(agent(1_000))).toBe(1_001);
    expect(keyEndClock(1_000)(agent(5_000))).toBe(5_001);
  });

  it("takes the clock's time again on a later attempt, still after the latest record", () => {
    vi.useFakeTimers({ now: 3_000, toFake: ['Date'] });
    const endAt = keyEndClock(1_000);
    expect(endAt(agent(999))).toBe(1_000);
    expect(endAt(agent(1_500))).toBe(3_000);
    expect(endAt(agent(9_000))).toBe(9_001);
  });
});

describe('latestCreatedAt', () => {
  it('keeps the latest, also when a record is created before the one it follows (another instance, another clock)', () => {
    expect(latestCreatedAt(undefined, 7)).toBe(7);
    expect(latestCreatedAt(5, 7)).toBe(7);
    expect(latestCreatedAt(9, 7)).toBe(9);
  });
});
