/**
 * `npm run test:quick` (docs/TESTING.md, "The quick tier"): the type check, the lint and the
 * unit tests of protocol/ and test/unit/ (vitest.quick.config.ts: no engine, no child process,
 * no network, enforced by test/support/quick-tier-guard.ts), in well under two minutes, for
 * before a commit. `npm test` stays the whole suite, and CI runs that.
 *
 * The checks run one after the other beside vitest, as in `npm test` (scripts/test.ts): each is
 * one single-threaded process. Their output is held and printed after the tests'. Arguments go
 * to `vitest run`.
 */
import { npm, run, type Result } from './test-parts.js';

const start = performance.now();
const checks = (async () => {
  const results: Result[] = [];
  for (const script of ['typecheck', 'lint']) results.push(await run(script, npm, ['run', '--silent', script], { stream: false }));
  return results;
})();
const tests = run('unit tests', 'vitest', ['run', '--config', 'vitest.quick.config.ts', ...process.argv.slice(2)], { stream: true });
const parts = [...(await checks), await tests];
for (const part of parts) if (part.output.trim()) process.stdout.write(`\n> ${part.name}\n${part.output}`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
process.stdout.write(`\nnpm run test:quick\n${parts.map((part) => `  ${part.name.padEnd(12)}${seconds(part.ms)}  ${part.code === 0 ? 'passed' : `FAILED (exit ${part.code})`}`).join('\n')}\n  ${'in all'.padEnd(12)}${seconds(performance.now() - start)}\n`);
process.exitCode = parts.every((part) => part.code === 0) ? 0 : 1;
