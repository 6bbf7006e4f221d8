/** The bounded cache of epoch trees behind verify's Merkle check (domain/epochs/weighted-cache.ts). */
import { describe, expect, it } from 'vitest';
import { WeightedCache } from '../../lambdas/domain/epochs/weighted-cache.js';

describe('WeightedCache', () => {
  it('evicts the least recently used entries once the total weight exceeds the bound', () => {
    const cache = new WeightedCache<string>(10);
    cache.set('a', 'A', 4);
    cache.set('b', 'B', 4);
    expect(cache.get('a')).toBe('A'); // a is now the most recently used
    cache.set('c', 'C', 4);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('A');
    expect(cache.get('c')).toBe('C');
    expect(cache.weight).toBe(8);
  });

  it('keeps nothing heavier than the bound, and replaces an entry without counting it twice', () => {
    const cache = new WeightedCache<string>(10);
    cache.set('big', 'X', 11);
    expect(cache.get('big')).toBeUndefined();
    cache.set('a', 'A', 6);
    cache.set('a', 'A2', 6);
    expect(cache.get('a')).toBe('A2');
    expect(cache.weight).toBe(6);
  });
});
