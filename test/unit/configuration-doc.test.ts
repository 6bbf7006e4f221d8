/**
 * docs/CONFIGURATION.md lists every LEDGER_* variable the product reads, and only those, with
 * the defaults lambdas/config.ts applies. "The product" is the service, the local stack and the
 * CDK app (lambdas/, local/, lib/, bin/); the test runners' own LEDGER_TEST_* variables are
 * theirs (docs/TESTING.md). The CLI's AGENT_LEDGER_* variables are checked against client/src.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC = 'docs/CONFIGURATION.md';
const doc = readFileSync(join(ROOT, DOC), 'utf8');

/** Source files under `dirs`, as repository paths. */
function sources(dirs: readonly string[]): string[] {
  return dirs.flatMap((dir) =>
    (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
      .filter((file) => /\.(?:ts|tsx|js|mjs)$/.test(file) && !file.includes('node_modules') && !file.includes('dist/'))
      .map((file) => `${dir}/${file}`),
  );
}

/** Each variable named in `files` (by `pattern`), with the first file that names it. */
function variablesIn(files: readonly string[], pattern: RegExp): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of files) {
    for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(pattern)) {
      const name = match[1] as string;
      if (!found.has(name)) found.set(name, file);
    }
  }
  return found;
}

/** The variables the document's tables list: rows whose first cell is a name in backticks, with their default cell. */
function documented(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of doc.split('\n')) {
    const match = /^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \|/.exec(line);
    if (match) rows.set(match[1] as string, (match[2] as string).trim());
  }
  return rows;
}

const missingMessage = (missing: [string, string][]) =>
  missing
    .map(
      ([name, file]) =>
        `${file} reads ${name}, which ${DOC} does not list. Add a row for it to the table of "## Settings" (something an operator may set) ` +
        `or "## Set by the stack" (wiring lib/ or local/ sets), in the form\n| \`${name}\` | <default, or "required"> | <what it does, and its unit> |`,
    )
    .join('\n');

describe(DOC, () => {
  const rows = documented();

  it('lists every LEDGER_* variable that lambdas/, local/, lib/ or bin/ reads, and no other', () => {
    // Not preceded by a letter or underscore: AGENT_LEDGER_HOME is the CLI's (below).
    const read = variablesIn(sources(['lambdas', 'local', 'lib', 'bin']), /(?<![A-Za-z0-9_])(LEDGER_[A-Z0-9_]+)/g);
    expect(read.size).toBeGreaterThanOrEqual(40); // the scan found the product's variables
    const missing = [...read].filter(([name]) => !rows.has(name));
    expect(missing.length, missingMessage(missing)).toBe(0);
    const stale = [...rows.keys()].filter((name) => name.startsWith('LEDGER_') && !read.has(name));
    expect(stale, `${DOC} lists variables nothing reads any more: remove their rows`).toEqual([]);
  });

  it("lists the CLI's AGENT_LEDGER_* variables", () => {
    const read = variablesIn(sources(['client/src']), /process\.env\.(AGENT_LEDGER_[A-Z0-9_]+)/g);
    expect(read.size).toBeGreaterThan(0);
    const missing = [...read].filter(([name]) => !rows.has(name));
    expect(missing.length, missingMessage(missing).replaceAll('"## Settings" (something an operator may set) or "## Set by the stack" (wiring lib/ or local/ sets)', '"## The CLI"')).toBe(0);
  });

  it('gives the defaults lambdas/config.ts applies', () => {
    const source = readFileSync(join(ROOT, 'lambdas/config.ts'), 'utf8');
    // A call after `?` reads a variable only when it is set (its fallback is never the default).
    const numeric = [...source.matchAll(/(?<!\? )(?:positiveInt|nonNegativeInt)\(env, '(LEDGER_[A-Z0-9_]+)', ([\d_ *]+)\)/g)];
    expect(numeric.length).toBeGreaterThanOrEqual(8);
    for (const [, name, expression] of numeric) {
      const value = (expression as string)
        .split('*')
        .map((factor) => Number(factor.trim().replaceAll('_', '')))
        .reduce((a, b) => a * b, 1);
      const cell = (rows.get(name as string) ?? '').replaceAll(',', '');
      expect(cell, `${DOC}: the default of ${name} is ${value} in lambdas/config.ts`).toMatch(new RegExp(`(?<![\\d.])${value}(?![\\d.])`));
    }
  });
});
