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
 * Beside each part's wall time the table gives the CPU it spent (where Linux's /proc tells it,
 * scripts/cpu-time.ts), DynamoDB Local's share of vitest's, and how busy the machine's cores were:
 * a run whose cores are busy all along gets faster only by spending less CPU, not by waiting less.
 *
 * Arguments go to `vitest run` (`npm test -- test/unit`). LEDGER_TEST_SERIAL=1 runs the checks
 * first and stops at their failure, as `npm test` did before (to compare, or to fail fast).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clockTicks, machineCpu, type MachineCpu } from './cpu-time.js';
import type { GroupTime, ProjectTimes } from './test-times-reporter.js';
import { npm, root, run, type Result } from './test-parts.js';

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

/** Where vitest's reporter (scripts/test-times-reporter.ts) and global setup (test/global-setup.ts) leave their figures. */
interface VitestFiles {
  times: string;
  enginesCpu: string;
}

function vitest(files: VitestFiles): Promise<Result> {
  const args = ['run', '--reporter=default', `--reporter=${join(root, 'scripts', 'test-times-reporter.ts')}`, ...process.argv.slice(2)];
  return run('vitest', 'vitest', args, { stream: true, env: { LEDGER_TEST_TIMES: files.times, LEDGER_TEST_ENGINES_CPU: files.enginesCpu } });
}

/** A JSON file a part may have written, or undefined (it stopped before writing it). */
function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(9);
const status = (result: Result) => (result.code === 0 ? 'passed' : `FAILED (exit ${result.code})`);
const cpu = (result: Result, of?: string) => (result.cpuSeconds === undefined ? '' : `  CPU ${seconds(result.cpuSeconds * 1000).trim()}${of ?? ''}`);
const counts = (group: GroupTime) => `${group.files} files, ${group.tests} tests; the files' own time summed: ${seconds(group.filesMs).trim()}`;

/** What the machine's cores did over the run: how busy, in core-seconds. */
function machineLine(start: MachineCpu | undefined, end: MachineCpu | undefined): string | undefined {
  if (!start || !end || end.total <= start.total) return undefined;
  const coreSeconds = (ticks: number) => Math.round(ticks / clockTicks());
  const busy = end.busy - start.busy;
  const total = end.total - start.total;
  return `  machine: ${end.cores} cores, busy ${Math.round((busy / total) * 100)} % of the run (${coreSeconds(busy)} of ${coreSeconds(total)} core-seconds)`;
}

interface TableInput {
  checks: Result[];
  tests: Result | undefined;
  times: ProjectTimes | undefined;
  dynamoDbLocalSeconds: number | undefined;
  extra: Result[];
  totalMs: number;
  machine: string | undefined;
  serial: boolean;
}

function table({ checks, tests, times, dynamoDbLocalSeconds, extra, totalMs, machine, serial }: TableInput): string {
  const lines = [`npm test: time per part (wall clock${serial ? '' : '; typecheck and lint ran beside vitest'})`];
  for (const check of checks) lines.push(`  ${check.name.padEnd(28)}${seconds(check.ms)}  ${status(check)}${cpu(check)}`);
  if (tests) {
    for (const [name, project] of Object.entries(times?.projects ?? {})) {
      lines.push(`  ${`vitest ${name}`.padEnd(28)}${seconds(project.wallMs)}  ${counts(project)}`);
      for (const [folder, group] of Object.entries(project.folders).sort(([, a], [, b]) => b.filesMs - a.filesMs)) {
        lines.push(`    ${folder.padEnd(26)}${seconds(group.wallMs)}  ${counts(group)}`);
      }
    }
    const engine = dynamoDbLocalSeconds === undefined ? undefined : `, of which DynamoDB Local's JVM ${seconds(dynamoDbLocalSeconds * 1000).trim()}`;
    lines.push(`  ${'vitest (all projects)'.padEnd(28)}${seconds(tests.ms)}  ${status(tests)}${cpu(tests, engine)}`);
  }
  for (const part of extra) lines.push(`  ${part.name.padEnd(28)}${seconds(part.ms)}  ${status(part)}${cpu(part)}`);
  lines.push(`  ${'npm test'.padEnd(28)}${seconds(totalMs)}`);
  if (machine) lines.push(machine);
  return lines.join('\n');
}

async function main(): Promise<number> {
  const start = performance.now();
  const machineAtStart = machineCpu();
  const serial = process.env.LEDGER_TEST_SERIAL === '1';
  const scratch = mkdtempSync(join(tmpdir(), 'ledger-test-times-'));
  const files: VitestFiles = { times: join(scratch, 'times.json'), enginesCpu: join(scratch, 'engines-cpu.json') };
  try {
    let checks: Result[];
    let tests: Result | undefined;
    if (serial) {
      checks = await staticChecks(true);
      if (checks.every((check) => check.code === 0)) tests = await vitest(files);
    } else {
      [checks, tests] = await Promise.all([staticChecks(false), vitest(files)]);
      for (const check of checks) {
        if (check.output.trim()) process.stdout.write(`\n> npm run ${check.name}\n${check.output}`);
      }
    }
    const extra = process.argv.length > 2 ? [] : [await python()];
    // Either file is missing when vitest stopped before its end: the table then has less in it.
    const times = readJson<ProjectTimes>(files.times);
    const dynamoDbLocalSeconds = readJson<{ dynamoDbLocalSeconds: number }>(files.enginesCpu)?.dynamoDbLocalSeconds;
    const machine = machineLine(machineAtStart, machineCpu());
    process.stdout.write(`\n${table({ checks, tests, times, dynamoDbLocalSeconds, extra, totalMs: performance.now() - start, machine, serial })}\n`);
    return [...checks, ...(tests ? [tests] : []), ...extra].every((result) => result.code === 0) ? 0 : 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

process.exitCode = await main();
