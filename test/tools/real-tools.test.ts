/**
 * The hook inside the real coding tools (`npm run test:tools`, not part of `npm test`): each
 * tool's published npm package at its pinned version (versions.json), in an isolated HOME,
 * pointed at the fake model (fake-model.ts), whose first answer is one shell call running a
 * probe that creates a marker file. The tool's own hook machinery runs our hook, through four
 * phases against the local stack:
 *   1. service up: the probe runs and the ledger holds its record (through the API);
 *   2. agent frozen: the probe does not run and the deny reason reaches the model;
 *   3. service down, on-error deny: the probe does not run;
 *   4. service down, on-error allow: the probe runs.
 * Where a tool's own output is where the person learns of a deny or of a call allowed without a
 * record (driver.shows), that output is checked too.
 * AGENT_LEDGER_TOOLS=claudecode,codex runs only those tools (default: every tool in drivers.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { seedOrg, seedUser } from '../support/seed-identity.js';
import { apiClient, type Api } from '../support/http-client.js';
import { login, readJson, runCli, storeLogin, tempHomes, type Run } from '../../client/test/support/cli.js';
import { DRIVERS } from './drivers.js';
import { startFakeModel, type FakeModel } from './fake-model.js';
import { PINNED, toolBin } from './tool-cache.js';

/** A tool's whole run, model turns included, on a loaded 2-core machine. */
const TOOL_RUN_MS = Number(process.env.AGENT_LEDGER_TOOL_RUN_MS ?? 300_000);

let stack: TestStack;
let api: Api;
let model: FakeModel;
const homes = tempHomes('real-tools');
/** Where nothing answers (port 9, discard). */
const DOWN_URL = 'http://127.0.0.1:9';

beforeAll(async () => {
  stack = await startTestStack();
  const orgId = await seedOrg('Real tools');
  const owner = await seedUser(orgId, 'org_owner');
  api = apiClient(stack.baseUrl, owner.token);
  await login(stack.baseUrl, owner.token, homes.env, homes.root);
  // The service-down phases point the agent at a port where nothing answers: a service of its
  // own, with a token of its own (a token is only ever sent to its own origin, docs/CLI.md
  // "Several services"), so that what they meet is the unreachable service, not a missing login.
  storeLogin(homes.ledgerHome, DOWN_URL, 'alt_token-of-the-service-that-is-down');
  model = await startFakeModel();
}, 120_000);
afterAll(async () => {
  await model?.stop();
  await stack?.stop();
});

/** Runs a tool in `cwd`; PWD follows it, since some tools (opencode) take their working directory from PWD. */
function runTool(bin: string, args: string[], cwd: string, env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd, env: { ...process.env, ...env, PWD: cwd }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n[test] killed after ${TOOL_RUN_MS} ms`;
      try {
        process.kill(-child.pid!, 'SIGKILL'); // the tool and whatever it started
      } catch {
        child.kill('SIGKILL');
      }
    }, TOOL_RUN_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const selected = (process.env.AGENT_LEDGER_TOOLS ? process.env.AGENT_LEDGER_TOOLS.split(',') : Object.keys(DRIVERS)).filter((flag) => flag in DRIVERS);

describe.each(selected)('%s, the real tool', (flag) => {
  const driver = DRIVERS[flag]!;
  const pinned = PINNED[flag]!;
  const agentId = `${flag}-real`;
  const home = join(homes.root, `home-${flag}`);
  const project = join(homes.root, `project-${flag}`);
  const env = { ...homes.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  const agentFile = (name: string) => join(homes.ledgerHome, 'agents', agentId, name);
  let bin: string;

  /** Runs the tool once with the probe `touch <marker>`; returns the run and whether the marker appeared. */
  async function phase(name: string) {
    const marker = join(project, `probe-${name}`);
    model.probe = `touch ${marker}`;
    const from = model.requests.length;
    const fromSeen = model.seen.length;
    const ctx = { home, project, modelUrl: model.url, prompt: `Run the probe for phase ${name}.`, bin };
    const run = await runTool(bin, driver.args(ctx), project, { ...env, ...driver.env(ctx) });
    const told = model.requests.slice(from).join('\n');
    const asked = model.seen.slice(fromSeen).join(', ') || 'nothing';
    const shown = `${run.stdout}\n${run.stderr}`;
    return { run, ran: existsSync(marker), told, shown, detail: `${pinned.package}@${pinned.version} exit ${run.code}; asked the fake model: ${asked}\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-2000)}` };
  }

  const setConfig = (change: Record<string, unknown>) => writeFileSync(agentFile('config.json'), JSON.stringify({ ...readJson(agentFile('config.json')), ...change }, null, 2));

  beforeAll(async () => {
    bin = toolBin(flag);
    mkdirSync(project, { recursive: true });
    const init = await runCli(['agent', 'init', '--tool', flag, '--agent-id', agentId, ...driver.initArgs], { env, cwd: project, timeoutMs: 60_000 });
    if (init.code !== 0) throw new Error(`agent init failed: ${init.stderr}`);
    // The hook's network budget: the local stack's first submission on a loaded 2-core machine
    // took over the default 10 s; 25 s stays under the 30 s the installer gives a hook.
    setConfig({ timeout_ms: 25_000 });
    driver.configure({ home, project, modelUrl: model.url, prompt: '', bin });
  }, 900_000);

  it(`${pinned.package}@${pinned.version}: service up, the probe runs and is recorded`, async () => {
    const { run, ran, detail } = await phase('up');
    expect(ran, detail).toBe(true);
    const chain = readJson(agentFile('chain.json'));
    expect(chain.seq_no, detail).toBeGreaterThanOrEqual(1);
    const { body } = await api('GET', `/v1/agents/${agentId}`);
    expect(body.chain.seq_no).toBe(chain.seq_no);
    // The shell call's record carries the probe as its target.
    const page = await api('POST', '/v1/audit/query', { agent_id: agentId, limit: 500 });
    expect(page.status).toBe(200);
    const targets: string[] = page.body.operations.map((operation: { action: string }) => JSON.parse(operation.action).target);
    expect(targets.some((target) => target.includes(join(project, 'probe-up'))), `${JSON.stringify(targets)}\n${detail}`).toBe(true);
    expect(run.code, detail).toBe(0);
  }, TOOL_RUN_MS + 30_000);

  it('agent frozen: the probe does not run, and the model is told why', async () => {
    expect((await api('POST', `/v1/agents/${agentId}/freeze`, { reason: 'test:tools' })).status).toBe(200);
    try {
      const { ran, told, shown, detail } = await phase('frozen');
      const reason = `denied by agent-ledger: agent ${agentId} is frozen`;
      expect(ran, detail).toBe(false);
      expect(told, detail).toContain(reason);
      if (driver.shows?.denyReason) expect(shown, detail).toContain(reason);
    } finally {
      expect((await api('POST', `/v1/agents/${agentId}/unfreeze`, { reason: 'test:tools done' })).status).toBe(200);
      rmSync(agentFile('status-cache.json'), { force: true }); // the hook's 60 s cache of "frozen"
    }
  }, TOOL_RUN_MS + 30_000);

  it('service down, on-error deny: the probe does not run', async () => {
    const url = readJson(agentFile('config.json')).url;
    setConfig({ url: DOWN_URL, on_error: 'deny', timeout_ms: 3000 });
    try {
      const { ran, detail } = await phase('down-deny');
      expect(ran, detail).toBe(false);
    } finally {
      setConfig({ url });
    }
  }, TOOL_RUN_MS + 30_000);

  it('service down, on-error allow: the probe runs', async () => {
    const url = readJson(agentFile('config.json')).url;
    setConfig({ url: DOWN_URL, on_error: 'allow', timeout_ms: 3000 });
    try {
      const { ran, shown, detail } = await phase('down-allow');
      expect(ran, detail).toBe(true);
      expect(readFileSync(agentFile('errors.log'), 'utf8')).toMatch(/could not be reached/);
      if (driver.shows?.allowWarning) expect(shown, detail).toMatch(/could not be reached.*allowed without a record/);
    } finally {
      setConfig({ url, on_error: 'deny' });
    }
  }, TOOL_RUN_MS + 30_000);
});
