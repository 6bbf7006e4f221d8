/**
 * `npm run test:acceptance`: the acceptance set (test/acceptance/files.ts) against a running
 * server, in URL mode (test/support/ledger-url.ts). It starts the server on a free port, waits
 * for its "listening on" line, runs the set, and stops the server.
 *
 *   npm run test:acceptance -- --against-rehearsal          npm run rehearse -- --serve (the deployed shape)
 *   npm run test:acceptance -- --against-start              npm start -- --memory
 *   npm run test:acceptance -- --against URL --mail-log F   a server already running (a deployed stack)
 *   … --against-rehearsal --cdk-out DIR                     the rehearsal of an assembly synthesized before
 *
 * Arguments after `--` go to vitest (a file filter, -t). The server's output is kept in
 * .tmp/acceptance-<target>.log: its mail lines give the tests their verification links. The
 * rehearsal, stopped, prints its IAM report; a denied call fails the run like a failed test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROJECT_ROOT } from '../lib/paths.js';
import { freePort } from '../local/free-port.js';

/**
 * The settings the runner gives the server: the files of the set ask for no others
 * (LEDGER_TEST_SERVER_ENV lets each file check). No rate limit worth the name (the
 * malformed-request and role sweeps send hundreds of requests a second from one organization),
 * webhooks to loopback (the tests' receivers), and no API token cache: members.test.ts checks
 * that a removal ends the member's API tokens at the next request, which holds on the process
 * that made the change and, across the rehearsal's functions (each a process, as in Lambda),
 * only after LEDGER_CALLER_CACHE_MS (docs/API.md §5: 5 s by default).
 */
const SERVER_ENV = { LEDGER_RATE_LIMIT_RPS: '100000', LEDGER_WEBHOOK_ALLOW_LOOPBACK: '1', LEDGER_CALLER_CACHE_MS: '0' } as const;

/**
 * npm start's local identity provider hashes passwords with scrypt at OWASP's cost; the set
 * signs up hundreds of users, so at the floor config.ts allows, as the in-process stacks do
 * (test/support/test-stack.ts). A cost, not a behaviour: Cognito hashes its own in the rehearsal.
 */
const START_COST = { LEDGER_SCRYPT_N: '16384' } as const;

/** Synthesizing with bundles takes minutes on a loaded 2-core machine; npm start's first run fetches DynamoDB Local. */
const READY_TIMEOUT_MS = 20 * 60_000;

const out = (line: string) => process.stdout.write(`${line}\n`);

interface Server {
  url: string;
  logFile: string;
  /** Stops it; resolves to its exit code. */
  stop(): Promise<number>;
}

function startServer(target: 'rehearsal' | 'start', cdkOut: string | undefined): Promise<Server> {
  return (async () => {
    const port = await freePort();
    mkdirSync(join(PROJECT_ROOT, '.tmp'), { recursive: true });
    const logFile = join(PROJECT_ROOT, '.tmp', `acceptance-${target}.log`);
    writeFileSync(logFile, '');
    const log = createWriteStream(logFile, { flags: 'a' });
    // The scripts behind `npm run rehearse -- --serve` and `npm start -- --memory`, without npm
    // in between: SIGTERM reaches the server itself, which stops its engines (and the
    // rehearsal prints its report) before it exits.
    const args =
      target === 'rehearsal'
        ? ['--import', 'tsx', 'scripts/rehearse/main.ts', '--serve', ...(cdkOut ? ['--cdk-out', cdkOut] : [])]
        : ['--import', 'tsx', 'local/main.ts', '--memory'];
    const child: ChildProcess = spawn(process.execPath, args, {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...SERVER_ENV, ...(target === 'start' ? START_COST : {}), PORT: String(port), LEDGER_DATA_DIR: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // 'close': exited, and its last output (the report) read.
    const exited = new Promise<number>((resolve) => child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    const stop = async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const code = await exited;
      log.end();
      return code;
    };
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => {
        reject(new Error(`the server did not say it was listening within ${READY_TIMEOUT_MS / 60_000} minutes (log: ${logFile})`));
        void stop();
      }, READY_TIMEOUT_MS);
      child.stdout!.on('data', (chunk: Buffer) => {
        seen = (seen + chunk.toString('utf8')).slice(-4096);
        const match = /listening on (http:\/\/\S+)/.exec(seen);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`the server exited with ${code} before listening (log: ${logFile})`));
      });
    });
    return { url, logFile, stop };
  })();
}

function runVitest(env: Record<string, string>, extra: readonly string[]): Promise<number> {
  const child = spawn('npx', ['vitest', 'run', '--config', 'vitest.acceptance.config.ts', ...extra], { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: 'inherit' });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

async function main(): Promise<number> {
  // The runner's own options; everything else is vitest's.
  const values: { 'against-rehearsal'?: boolean; 'against-start'?: boolean; against?: string; 'mail-log'?: string; 'cdk-out'?: string } = {};
  const extra: string[] = [];
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--against-rehearsal' || arg === '--against-start') values[arg.slice(2) as 'against-start'] = true;
    else if (arg === '--against' || arg === '--mail-log' || arg === '--cdk-out') values[arg.slice(2) as 'against'] = argv[++i];
    else extra.push(arg);
  }
  if (typeof values.against === 'string') {
    const mailLog = typeof values['mail-log'] === 'string' ? resolve(values['mail-log']) : undefined;
    if (!mailLog) out('no --mail-log: the tests that sign people up cannot follow their verification links');
    out(`acceptance set against ${values.against}`);
    return runVitest({ LEDGER_TEST_BASE_URL: values.against, ...(mailLog ? { LEDGER_TEST_MAIL_LOG: mailLog } : {}) }, extra);
  }
  const target = values['against-rehearsal'] ? 'rehearsal' : values['against-start'] ? 'start' : undefined;
  if (!target) {
    process.stderr.write('usage: npm run test:acceptance -- --against-rehearsal | --against-start | --against URL [--mail-log FILE] [vitest arguments]\n');
    return 2;
  }
  const started = Date.now();
  out(`starting ${target === 'rehearsal' ? 'npm run rehearse -- --serve' : 'npm start -- --memory'} (log: .tmp/acceptance-${target}.log)…`);
  const server = await startServer(target, values['cdk-out'] ? resolve(values['cdk-out']) : undefined);
  out(`${server.url} ready after ${((Date.now() - started) / 1000).toFixed(0)} s; the acceptance set:`);
  let testsCode = 1;
  try {
    testsCode = await runVitest({ LEDGER_TEST_BASE_URL: server.url, LEDGER_TEST_MAIL_LOG: server.logFile, LEDGER_TEST_SERVER_ENV: JSON.stringify(SERVER_ENV) }, extra);
  } finally {
    const serverCode = await server.stop();
    if (target === 'rehearsal') {
      // The IAM report the rehearsal printed as it stopped.
      const text = readFileSync(server.logFile, 'utf8');
      const report = text.lastIndexOf('\nfunctions (each loaded');
      out(report >= 0 ? text.slice(report + 1).split('\n').filter((line) => !line.startsWith('[')).join('\n') : `the rehearsal printed no report (log: ${server.logFile})`);
      if (serverCode !== 0) {
        out(`the rehearsal under the acceptance tests FAILED (exit ${serverCode}): its report above lists the problems`);
        testsCode ||= serverCode;
      }
    }
    out(`npm run test:acceptance -- --against-${target} took ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  return testsCode;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`test:acceptance: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
