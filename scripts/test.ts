/**
 * `npm test`: the static checks (`npm run typecheck`, `npm run lint`), every vitest project and
 * the Python implementation's tests (`npm run test:python`),
 * then the time each took.
 *
 * The static checks run beside vitest rather than before it: each is one single-threaded
 * process, while the test files spend much of their time waiting on DynamoDB Local, s3rver,
 * Chromium and timers, so on a 2-core machine the checks fit in the tests' idle time instead of
 * adding a minute and a half in front of them. The checks run one after the other, so there is
 * one extra process at a time. Their output is held and printed after the tests' (so that it
 * does not interleave with vitest's); a failure of any part fails `npm test`.
 *
 * Arguments go to `vitest run` (`npm test -- test/unit`). LEDGER_TEST_SERIAL=1 runs the checks
 * first and stops at their failure, as `npm test` did before (to compare, or to fail fast).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GroupTime, ProjectTimes } from './test-times-reporter.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface Result {
  name: string;
  code: number;
  ms: number;
  /** Held output of a part that did not stream. */
  output: string;
}

/** Runs one part; `stream` passes its output through as it comes, otherwise it is held for later. */
function run(name: string, command: string, args: string[], options: { stream: boolean; env?: NodeJS.ProcessEnv }): Promise<Result> {
  const start = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`, ...options.env },
      stdio: options.stream ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
    const done = (code: number) => resolve({ name, code, ms: performance.now() - start, output: Buffer.concat(chunks).toString() });
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      done(1);
    });
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

async function staticChecks(stream: boolean): Promise<Result[]> {
  const results: Result[] = [];
  for (const script of ['typecheck', 'lint']) {
    const result = await run(script, npm, ['run', '--silent', script], { stream });
    results.push(result);
    if (stream && result.code !== 0) break;
  }
  return results;
}

/**
 * The Python implementation's tests (python/, scripts/test-python.sh): after vitest, since its
 * end-to-end test starts a local stack of its own. A run narrowed to some files skips it.
 */
function python(): Promise<Result> {
  return run('python (pytest)', npm, ['run', '--silent', 'test:python'], { stream: true });
}

function vitest(timesFile: string): Promise<Result> {
  const args = ['run', '--reporter=default', `--reporter=${join(root, 'scripts', 'test-times-reporter.ts')}`, ...process.argv.slice(2)];
  return run('vitest', 'vitest', args, { stream: true, env: { LEDGER_TEST_TIMES: timesFile } });
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(9);
const status = (result: Result) => (result.code === 0 ? 'passed' : `FAILED (exit ${result.code})`);
const counts = (group: GroupTime) => `${group.files} files, ${group.tests} tests; the files' own time summed: ${seconds(group.filesMs).trim()}`;

function table(checks: Result[], tests: Result | undefined, times: ProjectTimes | undefined, extra: Result[], totalMs: number, serial: boolean): string {
  const lines = [`npm test: time per part (wall clock${serial ? '' : '; typecheck and lint ran beside vitest'})`];
  for (const check of checks) lines.push(`  ${check.name.padEnd(28)}${seconds(check.ms)}  ${status(check)}`);
  if (tests) {
    for (const [name, project] of Object.entries(times?.projects ?? {})) {
      lines.push(`  ${`vitest ${name}`.padEnd(28)}${seconds(project.wallMs)}  ${counts(project)}`);
      for (const [folder, group] of Object.entries(project.folders).sort(([, a], [, b]) => b.filesMs - a.filesMs)) {
        lines.push(`    ${folder.padEnd(26)}${seconds(group.wallMs)}  ${counts(group)}`);
      }
    }
    lines.push(`  ${'vitest (all projects)'.padEnd(28)}${seconds(tests.ms)}  ${status(tests)}`);
  }
  for (const part of extra) lines.push(`  ${part.name.padEnd(28)}${seconds(part.ms)}  ${status(part)}`);
  lines.push(`  ${'npm test'.padEnd(28)}${seconds(totalMs)}`);
  return lines.join('\n');
}

async function main(): Promise<number> {
  const start = performance.now();
  const serial = process.env.LEDGER_TEST_SERIAL === '1';
  const scratch = mkdtempSync(join(tmpdir(), 'ledger-test-times-'));
  const timesFile = join(scratch, 'times.json');
  try {
    let checks: Result[];
    let tests: Result | undefined;
    if (serial) {
      checks = await staticChecks(true);
      if (checks.every((check) => check.code === 0)) tests = await vitest(timesFile);
    } else {
      [checks, tests] = await Promise.all([staticChecks(false), vitest(timesFile)]);
      for (const check of checks) {
        if (check.output.trim()) process.stdout.write(`\n> npm run ${check.name}\n${check.output}`);
      }
    }
    const extra = process.argv.length > 2 ? [] : [await python()];
    let times: ProjectTimes | undefined;
    try {
      times = JSON.parse(readFileSync(timesFile, 'utf8')) as ProjectTimes;
    } catch {
      times = undefined; // vitest stopped before its end (the table then has its total only)
    }
    process.stdout.write(`\n${table(checks, tests, times, extra, performance.now() - start, serial)}\n`);
    return [...checks, ...(tests ? [tests] : []), ...extra].every((result) => result.code === 0) ? 0 : 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

process.exitCode = await main();
