import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../src/index.js';
import { DigestSum } from '../../src/export/digestsum.js';
import { WindowSet } from '../../src/export/windowset.js';

const E = 300_000;
const T = 1_750_000_200_000; // aligned to E

function setOf(windows: number[], e = E): WindowSet {
  const set = new WindowSet();
  for (const w of windows) set.add(T + w * e, T + (w + 1) * e);
  return set;
}

describe('WindowSet', () => {
  it('adds each window once, merges neighbours, and answers membership exactly', () => {
    const set = new WindowSet();
    expect(set.add(T + E, T + 2 * E)).toBe(true);
    expect(set.add(T + E, T + 2 * E)).toBe(false);
    expect(set.add(T + 3 * E, T + 4 * E)).toBe(true);
    expect(set.runs).toBe(2);
    expect(set.add(T + 2 * E, T + 3 * E)).toBe(true);
    expect(set.runs).toBe(1);
    expect(set.span()).toEqual({ start: T + E, end: T + 4 * E });
    expect(set.has(T + 2 * E, T + 3 * E)).toBe(true);
    expect(set.has(T, T + E)).toBe(false);
    expect(set.has(T + 4 * E, T + 5 * E)).toBe(false);
  });

  it('refuses a window overlapping another in part, and intervals that are not windows', () => {
    const set = setOf([0, 2]);
    expect(() => set.add(T + E / 2, T + E + E / 2)).toThrow(expect.objectContaining({ code: 'OVERLAPPING_WINDOWS' }));
    expect(() => set.add(T + 2 * E - 1, T + 3 * E)).toThrow(expect.objectContaining({ code: 'OVERLAPPING_WINDOWS' }));
    expect(() => set.add(T, T)).toThrow(expect.objectContaining({ code: 'INVALID_WINDOW' }));
    expect(() => set.add(Number.NaN, T)).toThrow(ProtocolError);
  });

  it('encodes to text and back to the same set, for any set of windows (fast-check)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat({ max: 2_000 }), { maxLength: 300 }), fc.constantFrom(1_000, 60_000, E), (windows, e) => {
        const set = setOf(windows, e);
        const again = WindowSet.decode(set.encode());
        expect(again.encode()).toBe(set.encode());
        const members = new Set(windows);
        for (let w = 0; w <= 2_001; w++) if (again.has(T + w * e, T + (w + 1) * e) !== members.has(w)) expect.fail(`window ${w}`);
      }),
      { numRuns: 40 },
    );
  });

  it('stays small: a year of 5-minute windows, bursty or alternating', () => {
    const year = Math.ceil((366 * 86_400_000) / E); // 105,408 windows
    const bursty = setOf(Array.from({ length: year }, (_, w) => w).filter((w) => w % 288 < 96)); // 8 hours a day
    expect(bursty.encode().length).toBeLessThan(4_000);
    const alternating = setOf(Array.from({ length: year }, (_, w) => w).filter((w) => w % 2 === 0));
    const text = alternating.encode();
    expect(text.startsWith('b.')).toBe(true);
    expect(text.length).toBeLessThan(18_000);
    const again = WindowSet.decode(text);
    expect([again.has(T + E, T + 2 * E), again.has(T + 2 * E, T + 3 * E), again.has(T + (year - 2) * E, T + (year - 1) * E)]).toEqual([false, true, true]);
  });

  it('decoding refuses text it did not write', () => {
    for (const bad of ['x', 'r.1.2', 'q.1.2.3', 'r.0.2.3', 'r.1.2.1,1', 'r.1.2.0', 'b.1.2.!!', 'b.1.2.AA', 'r.1.-2.3', 'r.zzzzzzzzzzzzz.1.1']) {
      expect(() => WindowSet.decode(bad), bad).toThrow(expect.objectContaining({ code: 'INVALID_CHECKPOINT' }));
    }
  });
});

describe('DigestSum', () => {
  it('does not depend on the order items were added, and survives text', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 20 }), (items) => {
        const a = new DigestSum();
        const b = new DigestSum();
        items.forEach((v) => a.addValue(v));
        [...items].reverse().forEach((v) => b.addValue(v));
        expect(a.equals(b)).toBe(true);
        expect(new DigestSum(a.toString()).equals(a)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('tells different sets apart, and refuses a bad saved sum', () => {
    const a = new DigestSum();
    const b = new DigestSum();
    a.addValue(['epoch', 1]);
    b.addValue(['epoch', 2]);
    expect(a.equals(b)).toBe(false);
    expect(() => new DigestSum('AAAA')).toThrow(expect.objectContaining({ code: 'INVALID_CHECKPOINT' }));
  });
});
