/**
 * The gaps the real tools showed (docs/HOOKS.md): Codex runs no hook until it is trusted, so
 * `agent init` says so, `status` and `doctor` report it, and `--trust` writes the trust entry
 * Codex's /hooks would write; the Cline CLI's run_commands is recorded with its commands as
 * the target, and a frozen agent's deny blocks that one call with the reason in its output;
 * `doctor` finds a hook another program removed, a key that is not the registered one and a
 * service that does not answer.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../test/support/test-stack.js';
import { seedOrg, seedUser } from '../../test/support/seed-identity.js';
import { apiClient, type Api } from '../../test/support/http-client.js';
import { codexHookHash } from '../src/tools/codex-trust.js';
import { fixture, login, readJson, runCli, spawnProcess, storeLogin, tempHomes } from './support/cli.js';

let stack: TestStack;
let api: Api;
const homes = tempHomes('checks');

beforeAll(async () => {
  stack = await startTestStack();
  const orgId = await seedOrg('Tool checks');
  const owner = await seedUser(orgId, 'org_owner');
  api = apiClient(stack.baseUrl, owner.token);
  await login(stack.baseUrl, owner.token, homes.env, homes.root);
});
afterAll(() => stack?.stop());

function place(label: string) {
  const home = join(homes.root, `home-${label}`);
  const project = join(homes.root, `project-${label}`);
  mkdirSync(project, { recursive: true });
  return { home, project, env: { ...homes.env, HOME: home } };
}

describe('Codex: a hook Codex does not trust records nothing, and every command says so', () => {
  it('init warns, status and doctor report "installed but not trusted", --trust writes the entry /hooks writes', async () => {
    const { home, project, env } = place('codex');
    const agentId = 'codex-trust';
    const init = await runCli(['agent', 'init', '--tool', 'codex', '--agent-id', agentId], { env, cwd: project });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toMatch(/WARNING: Codex will NOT run this hook until you trust it, so nothing Codex does is recorded yet/);
    expect(init.stderr).toContain(`agent-ledger agent init --tool codex --agent-id ${agentId} --trust`);
    const configToml = join(home, '.codex', 'config.toml');
    expect(existsSync(configToml)).toBe(false); // no consent, no trust entry

    const status = await runCli(['status', '--agent', agentId], { env });
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/hook +installed but not trusted: nothing is recorded/);
    const doctor = await runCli(['doctor', '--agent', agentId], { env, timeoutMs: 60_000 });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/FIX +installed but not trusted: nothing is recorded/);
    expect(doctor.stdout).toMatch(/ok +.*hooks\.json holds the hook/);

    // With consent: the trust entry under the key Codex uses, with the hash Codex computes.
    const trusted = await runCli(['agent', 'init', '--tool', 'codex', '--agent-id', agentId, '--trust'], { env, cwd: project });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stderr).not.toMatch(/WARNING/);
    const hooksJson = join(home, '.codex', 'hooks.json');
    const group = readJson(hooksJson).hooks.PreToolUse[0];
    const state = (parseToml(readFileSync(configToml, 'utf8')) as any).hooks.state; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed TOML
    expect(Object.keys(state)).toEqual([`${hooksJson}:pre_tool_use:0:0`]);
    expect(state[`${hooksJson}:pre_tool_use:0:0`].trusted_hash).toBe(codexHookHash(undefined, group.hooks[0]));
    expect(state[`${hooksJson}:pre_tool_use:0:0`].trusted_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const after = await runCli(['status', '--agent', agentId], { env });
    expect(after.stdout).toMatch(/hook +trusted: Codex runs the hook/);
    expect((await runCli(['doctor', '--agent', agentId], { env, timeoutMs: 60_000 })).code).toBe(0);

    // Another init changes nothing; an edit of the entry (its timeout) voids the trust, as in Codex.
    const again = await runCli(['agent', 'init', '--tool', 'codex', '--agent-id', agentId, '--trust'], { env, cwd: project });
    expect(again.stderr).toMatch(/hook already installed .*nothing changed/);
    const text = readFileSync(hooksJson, 'utf8');
    writeFileSync(hooksJson, text.replace('"timeout": 30', '"timeout": 31'));
    expect((await runCli(['status', '--agent', agentId], { env })).stdout).toMatch(/installed but not trusted: nothing is recorded \(the entry changed since it was trusted/);
    writeFileSync(hooksJson, text);

    // Uninstall takes the trust entry out again, with the hook.
    const uninstall = await runCli(['agent', 'uninstall', '--agent', agentId], { env });
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(existsSync(configToml)).toBe(false);
  }, 180_000); // a dozen CLI runs, each a process start on a loaded machine

  it("the hash is Codex's: SHA-256 of the sorted compact JSON identity, timeout defaulted to 600, absent options left out", () => {
    const identity = '{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"echo hello","timeout":600,"type":"command"}]}';
    const expected = `sha256:${execFileSync('openssl', ['dgst', '-sha256', '-r'], { input: identity }).toString().split(' ')[0]}`;
    expect(codexHookHash(undefined, { type: 'command', command: 'echo hello' })).toBe(expected);
    const withMatcher = '{"event_name":"pre_tool_use","hooks":[{"async":true,"command":"x","statusMessage":"s","timeout":1,"type":"command"}],"matcher":"^Bash$"}';
    expect(codexHookHash('^Bash$', { type: 'command', command: 'x', timeout: 0, async: true, statusMessage: 's' })).toBe(
      `sha256:${execFileSync('openssl', ['dgst', '-sha256', '-r'], { input: withMatcher }).toString().split(' ')[0]}`,
    );
  });

  it('a trust entry the user made under /hooks for an older hash is updated in place; other settings stay', async () => {
    const { home, project, env } = place('codex-existing');
    const agentId = 'codex-retrust';
    const hooksJson = join(home, '.codex', 'hooks.json');
    const configToml = join(home, '.codex', 'config.toml');
    mkdirSync(join(home, '.codex'), { recursive: true });
    const original = `model = "gpt-5-codex"\n\n[hooks.state."${hooksJson}:pre_tool_use:0:0"]\ntrusted_hash = "sha256:0000"\n\n[projects."/home/dev/app"]\ntrust_level = "trusted"\n`;
    writeFileSync(configToml, original);
    const init = await runCli(['agent', 'init', '--tool', 'codex', '--agent-id', agentId, '--trust'], { env, cwd: project });
    expect(init.code, init.stderr).toBe(0);
    const text = readFileSync(configToml, 'utf8');
    const parsed = parseToml(text) as any; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed TOML
    expect(parsed.model).toBe('gpt-5-codex');
    expect(parsed.projects['/home/dev/app'].trust_level).toBe('trusted');
    expect(parsed.hooks.state[`${hooksJson}:pre_tool_use:0:0`].trusted_hash).toBe(codexHookHash(undefined, readJson(hooksJson).hooks.PreToolUse[0].hooks[0]));
    expect(text.replace(/trusted_hash = "sha256:[0-9a-f]{64}"/, 'trusted_hash = "sha256:0000"')).toBe(original);
  });

  it('--trust is refused for a tool without trust', async () => {
    const { project, env } = place('trust-other');
    const run = await runCli(['agent', 'init', '--tool', 'claudecode', '--agent-id', 'no-trust', '--trust'], { env, cwd: project });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--trust applies to codex only/);
  });
});

describe('Cline CLI: run_commands', () => {
  it('records the commands as the target, and a frozen agent denies that one call with the reason in its output', async () => {
    const { home, project, env } = place('cline');
    const agentId = 'cline-cli';
    const init = await runCli(['agent', 'init', '--tool', 'cline', '--agent-id', agentId], { env, cwd: project });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).not.toMatch(/--yolo/);
    const script = join(home, 'Documents', 'Cline', 'Hooks', 'PreToolUse');
    const run = (input: string) => execScript(script, input, env);

    const event = fixture('events/cline-cli.json');
    const allowed = await run(event);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(JSON.parse(allowed.stdout)).toEqual({ cancel: false });
    const chain = readJson(join(homes.ledgerHome, 'agents', agentId, 'chain.json'));
    const { body } = await api('GET', `/v1/operations/${chain.operation_id}`);
    expect(JSON.parse(body.operation.action)).toEqual({ verb: 'run_commands', target: 'npm install; npm test -- --run' });
    expect(body.payload).toEqual({ client: 'cline', session_id: 'conv_1795686224423_pr85hqz', tool_input: { commands: ['npm install', 'npm test -- --run'] } });

    // Only the stringified parameters (no tool_call): the target is the same.
    const legacy = JSON.parse(event);
    delete legacy.tool_call;
    expect((await run(JSON.stringify(legacy))).code).toBe(0);
    const second = await api('GET', `/v1/operations/${readJson(join(homes.ledgerHome, 'agents', agentId, 'chain.json')).operation_id}`);
    expect(JSON.parse(second.body.operation.action)).toEqual({ verb: 'run_commands', target: 'npm install; npm test -- --run' });

    expect((await api('POST', `/v1/agents/${agentId}/freeze`, { reason: 'test: cline deny' })).status).toBe(200);
    // A probe in place of the commands: the deny must keep it from running.
    const marker = join(project, 'probe-ran');
    const probe = JSON.parse(event);
    probe.tool_call.input.commands = [`touch ${marker}`];
    probe.preToolUse.parameters.commands = JSON.stringify([`touch ${marker}`]);
    const denied = await run(JSON.stringify(probe));
    expect(denied.code).toBe(0);
    const answer = JSON.parse(denied.stdout);
    const reason = `denied by agent-ledger: agent ${agentId} is frozen`;
    expect(answer).toEqual({ cancel: false, errorMessage: reason, overrideInput: { commands: [expect.any(String)] } });
    // What Cline then runs in place of the call: it prints the reason and fails, and the probe never ran.
    const replaced = await shell(answer.overrideInput.commands[0], project);
    expect(replaced.code).not.toBe(0);
    expect(replaced.stderr.trim()).toBe(reason);
    expect(existsSync(marker)).toBe(false);

    // A call that is not a shell command is cancelled, with the reason.
    const read = { ...probe, tool_call: { id: 'call_2', name: 'read_files', input: { file_paths: ['/etc/hosts'] } }, preToolUse: { toolName: 'read_files', parameters: { file_paths: '["/etc/hosts"]' } } };
    expect(JSON.parse((await run(JSON.stringify(read))).stdout)).toEqual({ cancel: true, errorMessage: reason });
  }, 120_000);
});

describe('opencode: the warning of a call allowed without a record reaches the user', () => {
  it('the plugin appends it to the call\'s output, writes it to stderr and shows a toast', async () => {
    const { home, project, env } = place('opencode');
    const agentId = 'opencode-allow';
    const init = await runCli(['agent', 'init', '--tool', 'opencode', '--agent-id', agentId, '--on-error', 'allow'], { env, cwd: project });
    expect(init.code, init.stderr).toBe(0);
    const configPath = join(homes.ledgerHome, 'agents', agentId, 'config.json');
    writeFileSync(configPath, JSON.stringify({ ...readJson(configPath), url: 'http://127.0.0.1:9', timeout_ms: 3000 }));
    // A service logged in to that went down: its own token, stored for its own origin.
    storeLogin(homes.ledgerHome, 'http://127.0.0.1:9', 'alt_token-of-the-unreachable-service');
    const pluginDir = join(home, '.config', 'opencode', 'plugins');
    const plugin = (await import(pathToFileURL(join(pluginDir, `agent-ledger-${agentId}.js`)).href)) as Record<string, (ctx: unknown) => Promise<Record<string, (input: unknown, output: unknown) => Promise<void>>>>;
    const toasts: unknown[] = [];
    const client = { tui: { showToast: async (request: unknown) => void toasts.push(request) } };
    const hooks = await plugin.AgentLedger!({ directory: project, client });
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const saved = { ...process.env };
    Object.assign(process.env, { AGENT_LEDGER_HOME: env.AGENT_LEDGER_HOME, HOME: env.HOME });
    process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const call = { tool: 'bash', sessionID: 'ses_1', callID: 'call_1' };
      await hooks['tool.execute.before']!(call, { args: { command: 'ls' } });
      const output = { title: 'ls', output: 'README.md', metadata: {} };
      await hooks['tool.execute.after']!(call, output);
      expect(output.output).toMatch(/^README\.md\n\nagent-ledger: the ledger at http:\/\/127\.0\.0\.1:9 could not be reached: .*allowed without a record \(on-error allow\)$/s);
      // Another call's output is left as it is.
      const other = { title: 'ls', output: 'x', metadata: {} };
      await hooks['tool.execute.after']!({ ...call, callID: 'call_2' }, other);
      expect(other.output).toBe('x');
    } finally {
      process.stderr.write = write;
      for (const key of ['AGENT_LEDGER_HOME', 'HOME']) process.env[key] = saved[key];
    }
    expect(stderr.join('')).toMatch(/allowed without a record \(on-error allow\)/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(toasts).toEqual([{ body: { title: 'agent-ledger', message: expect.stringMatching(/allowed without a record/), variant: 'warning' } }]);
  }, 60_000);
});

describe('doctor', () => {
  it('finds a hook another program removed, a key that is not the registered one, and a service that does not answer', async () => {
    const { home, project, env } = place('doctor');
    const agentId = 'doctor-claude';
    expect((await runCli(['agent', 'init', '--tool', 'claudecode', '--agent-id', agentId], { env, cwd: project })).code).toBe(0);
    const healthy = await runCli(['doctor', '--agent', agentId], { env, timeoutMs: 60_000 });
    expect(healthy.code, healthy.stdout).toBe(0);
    expect(healthy.stdout).toMatch(/agent doctor-claude: ok/);
    expect(healthy.stdout).toMatch(/the key doctor-claude-k1 matches the registered, active key/);

    const settings = join(home, '.claude', 'settings.json');
    const installed = readFileSync(settings, 'utf8');
    writeFileSync(settings, '{\n  "hooks": {}\n}\n');
    const removed = await runCli(['doctor', '--agent', agentId], { env, timeoutMs: 60_000 });
    expect(removed.code).toBe(1);
    expect(removed.stdout).toMatch(/FIX +.*settings\.json no longer holds the hook .*run `agent-ledger agent init` again/);
    writeFileSync(settings, installed);

    // A key file swapped for another key.
    const keyPath = join(homes.ledgerHome, 'agents', agentId, 'key');
    const original = readFileSync(keyPath, 'utf8');
    chmodSync(keyPath, 0o600);
    writeFileSync(keyPath, execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519']).toString());
    const swapped = await runCli(['doctor', '--agent', agentId], { env, timeoutMs: 60_000 });
    expect(swapped.code).toBe(1);
    expect(swapped.stdout).toMatch(/FIX +.*key is not the key of doctor-claude-k1 in config\.json/);
    writeFileSync(keyPath, original);

    // A service that does not answer: said, with a non-zero exit, in bounded time.
    const configPath = join(homes.ledgerHome, 'agents', agentId, 'config.json');
    const config = readFileSync(configPath, 'utf8');
    writeFileSync(configPath, JSON.stringify({ ...JSON.parse(config), url: 'http://127.0.0.1:9' }));
    storeLogin(homes.ledgerHome, 'http://127.0.0.1:9', 'alt_token-of-the-unreachable-service');
    const down = await runCli(['doctor', '--agent', agentId], { env, timeoutMs: 60_000 });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/FIX +the service at http:\/\/127\.0\.0\.1:9 does not answer/);
    writeFileSync(configPath, config);

    expect((await api('POST', `/v1/agents/${agentId}/freeze`, { reason: 'doctor test' })).status).toBe(200);
    const frozen = await runCli(['doctor', '--agent', agentId], { env, timeoutMs: 60_000 });
    expect(frozen.code).toBe(1);
    expect(frozen.stdout).toMatch(/FIX +the agent is frozen: every tool use is denied/);
  }, 400_000);
});

/** Runs a hook script as a tool does: the event on stdin. */
const execScript = (script: string, input: string, env: Record<string, string | undefined>) => spawnProcess(script, [], { input, env });

const shell = (command: string, cwd: string) => spawnProcess('/bin/sh', ['-c', command], { cwd });
