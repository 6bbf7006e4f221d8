import { describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/index.js';

describe('uuidv7 (RFC 9562 §5.7)', () => {
  it('is a lower-case version 7, variant 10 UUID carrying the millisecond timestamp', () => {
    const id = uuidv7(0x0190_b7c4_8f2e);
    expect(id).toMatch(/^0190b7c4-8f2e-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('sorts by time and never repeats', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => uuidv7(1_700_000_000_000 + i));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
