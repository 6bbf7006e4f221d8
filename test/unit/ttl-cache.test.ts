// The per-process cache of the hot path (lambdas/shared/ttl-cache.ts; docs/COST.md, Caches),
// on an injected clock: entries expire exactly after their lifetime, the oldest go first
// past the bound, and a lifetime of 0 caches nothing.
import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../lambdas/shared/ttl-cache.js';

describe('TtlCache', () => {
  it('returns an entry until its lifetime has passed, then never again', () => {
    let now = 1_000;
    const cache = new TtlCache<string>(500, 10, () => now);
    cache.set('a', 'x');
    now = 1_499;
    expect(cache.get('a')).toBe('x');
    now = 1_500;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('restarts the lifetime when an entry is set again, and forgets deleted entries', () => {
    let now = 0;
    const cache = new TtlCache<number>(100, 10, () => now);
    cache.set('a', 1);
    now = 90;
    cache.set('a', 2);
    now = 150;
    expect(cache.get('a')).toBe(2);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const cache = new TtlCache<number>(1_000, 2, () => 0);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 2, 3]);
  });

  it('caches nothing with a lifetime of 0 (LEDGER_CALLER_CACHE_MS=0)', () => {
    const cache = new TtlCache<number>(0, 10, () => 0);
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
  });
});
