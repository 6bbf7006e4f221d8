/**
 * The service hands out its own client (docs/CLI.md "Installing the CLI from the service"), and a
 * hook installed from it lives outside this repository (docs/CLI.md "Which CLI the
 * hook runs"): the local stack serves /client/index.json, the CLI's tarball and the Python wheel built
 * from this checkout (lib/client-files/build.ts). From those URLs alone, with npm's registry set to
 * an address where nothing answers and an empty npm cache:
 *
 * - `npm install --prefix DIR <URL>` installs the CLI into an empty directory; its `agent init
 *   --tool claudecode` writes a hook into a real Claude Code settings file that names no path of
 *   this repository (a copy under AGENT_LEDGER_HOME, since nothing is on PATH); the command read
 *   back from settings.json, run by a shell with a tool-use event on stdin, gets its record accepted;
 * - `npm install -g --prefix DIR <URL>` with DIR/bin on PATH: the hook runs DIR/bin/agent-ledger;
 *   doctor says the CLI and the hook's CLI are the package the service hands out, then FIX when an
 *   installed file is changed and when the hook's CLI is gone;
 * - the wheel installs with `pip install --no-index <URL>` into a fresh venv, and its verifier runs.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, fixture, spawnProcess, type Run } from '../../client/test/support/cli.js';
import type { ClientIndex } from '../../client/src/package/served-index.js';
import { clientFiles } from '../../lib/client-files/build.js';
import { PROJECT_ROOT } from '../../lib/paths.js';
import { startHttpServer } from '../../local/http-server.js';
import type { Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const run = promisify(execFile);
// Built (or found cached) before the stack starts; the wheel is required, as for a deploy.
const clientDir = clientFiles({ wheel: 'required' });
const stack = useLedgerStack(() => ({ clientDir }));
const root = mkdtempSync(join(tmpdir(), 'agent-ledger-served-'));
/** Node's own directory and the system's: no agent-ledger of this machine's, nothing of this repository. */
const basePath = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
/** npm with no registry to reach (port 9, discard, answers nothing) and a cache of its own that starts empty. */
const npmEnv = { ...process.env, PATH: basePath, npm_config_registry: 'http://127.0.0.1:9/', npm_config_cache: join(root, 'npm-cache'), npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };

let index: ClientIndex;
let owner: { token: string; api: Api };
let agentCount = 0;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const served = (kind: 'npm' | 'wheel') => index.files.find((file) => file.kind === kind)!;
const url = (kind: 'npm' | 'wheel') => `${stack.baseUrl}/client/${served(kind).name}`;

beforeAll(async () => {
  const response = await fetch(`${stack.baseUrl}/client/index.json`);
  expect(response.status).toBe(200);
  index = (await response.json()) as ClientIndex;
  const org = await stack.org('org_owner');
  owner = { token: org.users.org_owner.token, api: org.api.org_owner };
});

/** A person's machine: its own HOME (with Claude Code's settings from the fixture) and AGENT_LEDGER_HOME. */
function machine(label: string, path: string) {
  const dir = mkdtempSync(join(root, `${label}-`));
  const home = join(dir, 'home');
  mkdirSync(join(home, '.claude'), { recursive: true });
  copyFileSync(join(FIXTURES, 'configs', 'claudecode', '.claude', 'settings.json'), join(home, '.claude', 'settings.json'));
  const ledgerHome = join(dir, 'ledger');
  return { dir, home, ledgerHome, env: { PATH: path, HOME: home, AGENT_LEDGER_HOME: ledgerHome, XDG_CONFIG_HOME: undefined, CLAUDE_CONFIG_DIR: undefined } };
}

type Machine = ReturnType<typeof machine>;

const cli = (bin: string, m: Machine, args: string[], input?: string): Promise<Run> => spawnProcess(bin, args, { env: m.env, cwd: m.dir, timeoutMs: 60_000, ...(input === undefined ? {} : { input }) });

/** Logs in and runs `agent init --tool claudecode` with the installed CLI; answers the hook command settings.json names. */
async function initClaude(bin: string, m: Machine): Promise<{ agentId: string; command: string; init: Run }> {
  const tokenFile = join(m.dir, 'token');
  writeFileSync(tokenFile, `${owner.token}\n`, { mode: 0o600 });
  const login = await cli(bin, m, ['login', '--url', stack.baseUrl, '--token-file', tokenFile]);
  expect(login.code, login.stderr).toBe(0);
  const agentId = `served-claude-${++agentCount}`;
  const init = await cli(bin, m, ['agent', 'init', '--tool', 'claudecode', '--agent-id', agentId]);
  expect(init.code, init.stderr).toBe(0);
  // The fixture holds the person's own PreToolUse hook too: ours is the one that runs this agent's.
  const settings = JSON.parse(readFileSync(join(m.home, '.claude', 'settings.json'), 'utf8')) as { hooks: { PreToolUse: { hooks: { command: string }[] }[] } };
  const commands = settings.hooks.PreToolUse.flatMap((group) => group.hooks.map((hook) => hook.command)).filter((command) => command.endsWith(` hook claudecode --agent ${agentId}`));
  expect(commands).toHaveLength(1);
  return { agentId, command: commands[0]!, init };
}

/** Runs the hook command as Claude Code does (a shell, the event on stdin) and checks the service has the record. */
async function hookRecords(m: Machine, agentId: string, command: string): Promise<void> {
  const hook = await spawnProcess(command, [], { shell: true, env: m.env, cwd: m.dir, input: fixture('events/claudecode.json'), timeoutMs: 60_000 });
  expect(hook.code, hook.stderr).toBe(0);
  expect(hook.stdout).not.toMatch(/deny/);
  const chain = JSON.parse(readFileSync(join(m.ledgerHome, 'agents', agentId, 'chain.json'), 'utf8')) as { seq_no: number; operation_id: string };
  expect(chain.seq_no).toBe(1);
  const { status, body } = await owner.api('GET', `/v1/operations/${chain.operation_id}`);
  expect(status).toBe(200);
  expect(body.operation).toMatchObject({ agent_id: agentId, seq_no: 1, operation_type: 'tool.invoke' });
}

describe('the files under /client/', () => {
  it('are listed in index.json with their version and SHA-256, and served as listed', async () => {
    const version = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'client', 'package.json'), 'utf8')) as { version: string }).version;
    expect(index.format).toBe('agent-ledger-client-files/1');
    expect(index.files.map((file) => [file.kind, file.name, file.version])).toEqual([
      ['npm', `agent-ledger-${version}.tgz`, version],
      ['wheel', `agent_ledger-${version}-py3-none-any.whl`, version],
    ]);
    for (const kind of ['npm', 'wheel'] as const) {
      const response = await fetch(url(kind));
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(served(kind).sha256);
    }
    expect((await fetch(`${stack.baseUrl}/client/..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${stack.baseUrl}/client/nothing.tgz`)).status).toBe(404);
  });

  it('answer 503 with Retry-After while npm start is still building them', async () => {
    const server = await startHttpServer({ clientFiles: () => 'building' });
    try {
      const response = await fetch(`${server.url}/client/index.json`);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.text()).toMatch(/being built/);
    } finally {
      await server.close();
    }
  });
});

describe('the CLI installed from its URL', () => {
  it('npm install --prefix: agent init writes a hook that names nothing of this repository, and the hook records', async () => {
    const prefix = join(root, 'local-install');
    mkdirSync(prefix);
    await run('npm', ['install', '--prefix', prefix, url('npm')], { env: npmEnv, cwd: prefix });
    const installed = join(prefix, 'node_modules', '@agent-ledger', 'client');
    expect(lstatSync(installed).isDirectory()).toBe(true); // unpacked here, not a link to a workspace
    const m = machine('local', basePath);
    const { agentId, command, init } = await initClaude(join(prefix, 'node_modules', '.bin', 'agent-ledger'), m);

    // Not on PATH: the hook runs the copy the CLI keeps under AGENT_LEDGER_HOME.
    const copy = join(m.ledgerHome, 'cli', 'agent-ledger.cjs');
    expect(init.stderr).toContain(`the hook runs ${copy}, a copy of this CLI`);
    expect(command).toBe([process.execPath, copy, 'hook', 'claudecode', '--agent', agentId].join(' '));
    expect(command).not.toContain(PROJECT_ROOT.replace(/\/$/, ''));
    expect(sha256(readFileSync(copy))).toBe(served('npm').contents!['dist/cli.cjs']);
    // The installed package may go too: the hook does not need it.
    rmSync(prefix, { recursive: true, force: true });
    await hookRecords(m, agentId, command);
  }, 180_000);

  it('npm install -g --prefix with its bin on PATH: the hook runs that agent-ledger, and doctor checks it against the service', async () => {
    const prefix = join(root, 'global-install');
    await run('npm', ['install', '-g', '--prefix', prefix, url('npm')], { env: npmEnv, cwd: root });
    const bin = join(prefix, 'bin', 'agent-ledger');
    const m = machine('global', `${join(prefix, 'bin')}:${basePath}`);
    const { agentId, command, init } = await initClaude(bin, m);
    expect(init.stderr).toContain(`the hook runs ${bin} (agent-ledger on PATH)`);
    expect(command).toBe([process.execPath, bin, 'hook', 'claudecode', '--agent', agentId].join(' '));
    expect(existsSync(join(m.ledgerHome, 'cli'))).toBe(false);
    await hookRecords(m, agentId, command);

    const doctor = await cli(bin, m, ['doctor']);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).toContain(`holds the files it was packed with (tree digest ${served('npm').tree_sha256})`);
    expect(doctor.stdout).toContain(`ok   the CLI is the package the service hands out, ${url('npm')} (tree digest matches)`);
    expect(doctor.stdout).toContain(`ok   the hook runs ${bin} (version ${served('npm').version}), and it starts`);
    expect(doctor.stdout).toContain(`ok   the hook's CLI is the program of ${url('npm')}`);

    // A changed file of the installed package, then a hook whose CLI is gone: doctor says what to fix.
    const installed = join(prefix, 'lib', 'node_modules', '@agent-ledger', 'client');
    appendFileSync(join(installed, 'dist', 'index.js'), '\n// changed\n');
    const changed = await cli(bin, m, ['doctor']);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain(`FIX  the files in ${installed} are not the ones packed (dist/index.js differ): reinstall the CLI`);
    // The CLI uninstalled (one copy of its program kept, to run doctor with: its entry file and
    // the commands' module beside it, client/build.mjs): the hook's command no longer runs.
    const keptDir = join(m.dir, 'kept-cli');
    mkdirSync(keptDir);
    for (const file of ['cli.cjs', 'commands.cjs']) copyFileSync(join(installed, 'dist', file), join(keptDir, file));
    const kept = join(keptDir, 'cli.cjs');
    rmSync(prefix, { recursive: true, force: true });
    const gone = await cli(process.execPath, m, [kept, 'doctor', '--agent', agentId]);
    expect(gone.code, gone.stdout).toBe(1);
    expect(gone.stdout).toContain(`FIX  the hook's command does not run (\`${process.execPath} ${bin} --version\`: `);
    expect(gone.stdout).toContain('): run `agent-ledger agent init` again');
  }, 180_000);
});

describe('the Python package installed from its URL', () => {
  it('pip install --no-index <URL> into a fresh venv, and its verifier runs', async () => {
    const venv = join(root, 'venv');
    // Debian's cryptography (python3-cryptography) is the one dependency: the venv sees the system's packages.
    await run('/usr/bin/python3', ['-m', 'venv', '--system-site-packages', venv]);
    const pip = await run(join(venv, 'bin', 'pip'), ['install', '--no-index', '--no-cache-dir', url('wheel')], { env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' } });
    expect(pip.stdout).toMatch(/Successfully installed agent-ledger-/);
    const help = await run(join(venv, 'bin', 'agent-ledger-py'), ['verify', '--help']);
    expect(help.stdout).toMatch(/^usage: python -m agent_ledger verify .*--jwks/s);
    const exports = join(PROJECT_ROOT, 'protocol', 'test', 'fixtures', 'exports');
    const verify = await run(join(venv, 'bin', 'agent-ledger-py'), ['verify', join(exports, 'cases', 'genuine-all.json'), '--jwks', join(exports, 'jwks.json')], { cwd: root });
    expect(verify.stdout.trim()).toMatch(/export bundle verified$/);
  }, 120_000);
});
