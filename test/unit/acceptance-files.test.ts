/** test/acceptance/files.ts names every e2e file once: in the acceptance set, or in process only with a reason. */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACCEPTANCE_FILES, IN_PROCESS_ONLY } from '../acceptance/files.js';

describe('the acceptance set', () => {
  it('classifies every e2e file exactly once', () => {
    const e2e = readdirSync(new URL('../e2e/', import.meta.url)).filter((name) => name.endsWith('.test.ts')).sort();
    const named = [...ACCEPTANCE_FILES, ...Object.keys(IN_PROCESS_ONLY)];
    expect(named.sort()).toEqual(e2e);
    expect(new Set(named).size).toBe(named.length);
    for (const [file, reason] of Object.entries(IN_PROCESS_ONLY)) expect(reason.length, file).toBeGreaterThan(10);
  });
});
