/**
 * How many rows an audit page carries (lambdas/domain/audit/page-budget.ts): the longest prefix
 * whose rows, each escaped as the Lambda response carries the body, fit the budget, measured
 * once for the whole page when it surely fits.
 */
import { describe, expect, it } from 'vitest';
import { proxiedBytes, withinPageBudget } from '../../lambdas/domain/audit/page-budget.js';

/** The bytes of `rows` and the commas between them as the proxied body carries them: the array's JSON escaped once more, without its quotes and brackets. */
const carried = (rows: unknown[]) => proxiedBytes(rows) - 4;

describe('withinPageBudget', () => {
  const row = (text: string) => ({ subject: text });

  it('keeps a page whose JSON is within a third of the budget whole, whatever its characters', () => {
    // Quotes and backslashes (escaped twice), 2-, 3- and 4-byte UTF-8 characters, a lone surrogate, plain ASCII.
    for (const text of ['"\\"', 'é', '€€€', '\u{1F600}', '\uD800', 'plain']) {
      const rows = Array.from({ length: 100 }, () => row(text.repeat(10)));
      const units = JSON.stringify(rows).length;
      expect(carried(rows)).toBeLessThanOrEqual(3 * units);
      expect(withinPageBudget(rows, 3 * units)).toEqual(rows);
    }
  });

  it('keeps every row that fits when the JSON is over half the budget and escaping adds little', () => {
    const rows = Array.from({ length: 100 }, (_, i) => row(`plain text ${i} `.repeat(20)));
    const budget = carried(rows);
    expect(Buffer.byteLength(JSON.stringify(rows)) * 2).toBeGreaterThan(budget);
    expect(withinPageBudget(rows, budget)).toEqual(rows);
    expect(withinPageBudget(rows, budget - 1)).toEqual(rows.slice(0, 99));
  });

  it('cuts quote-heavy rows at the last one whose escaped bytes fit', () => {
    const rows = Array.from({ length: 50 }, () => row('"'.repeat(1000)));
    const budget = carried(rows.slice(0, 20)) + 10;
    const kept = withinPageBudget(rows, budget);
    expect(kept).toHaveLength(20);
    expect(carried(kept)).toBeLessThanOrEqual(budget);
    expect(carried(rows.slice(0, 21))).toBeGreaterThan(budget);
  });

  it('keeps the first row even when it alone is over the budget', () => {
    const rows = [row('x'.repeat(1000)), row('y')];
    expect(withinPageBudget(rows, 10)).toEqual([rows[0]]);
  });
});
