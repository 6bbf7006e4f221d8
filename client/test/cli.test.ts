/**
 * The CLI as a person uses it: login (secrets only from an owner-only file, stdin or a
 * prompt), agent init and uninstall (idempotent, byte-for-byte restore), submit and offline
 * verify of the receipt it prints (exit 0 only when everything verifies), status, and the
 * refusals of files others can read. The API token's expiry and rejection (docs/CLI.md "API
 * token expiry"): login says who, which organization and until when, and refuses a pasted
 * token id; status, doctor and the hook's errors.log warn a day before; an expired or revoked
 * token makes the hook deny naming the console page and `agent-ledger login`, and doctor say
 * "rejected: expired".
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../test/support/test-stack.js';
import { seedOrg, seedToken, seedUser, type SeededUser } from '../../test/support/seed-identity.js';
import { apiClient } from '../../test/support/http-client.js';
import { CLI, fixture, FIXTURES, login, readJson, runCli, storeLogin, tempHomes } from './support/cli.js';

let stack: TestStack;
let token: string;
let orgId: string;
let owner: SeededUser;
const homes = tempHomes('cli');
const env = homes.env;
const cli = (args: string[], input?: string) => runCli(args, { env, ...(input === undefined ? {} : { input }) });

beforeAll(async () => {
  stack = await startTestStack();
  orgId = await seedOrg('CLI');
  owner = await seedUser(orgId, 'org_owner');
  token = owner.token;
});
afterAll(() => stack?.stop());

describe('agent-ledger login', () => {
  it('refuses a token on the command line and a token file others can read', async () => {
    const argv = await cli(['login', '--url', stack.baseUrl, `--token=${token}`]);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toMatch(/--token is not accepted: secrets never go on the command line/);
    expect(argv.stderr).not.toContain(token);
    const file = join(homes.root, 'token-readable');
    writeFileSync(file, token, { mode: 0o644 });
    chmodSync(file, 0o644);
    const readable = await cli(['login', '--url', stack.baseUrl, '--token-file', file]);
    expect(readable.code).toBe(1);
    expect(readable.stderr).toMatch(/can be read or changed by others \(mode 644\); fix it with: chmod 600 /);
  });

  it('rejects a token the service does not accept, and stores a good one with mode 600', async () => {
    const bad = await cli(['login', '--url', stack.baseUrl], 'not-a-token\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/did not accept the token \(UNAUTHORIZED\)/);
    const good = await cli(['login', '--url', `${stack.baseUrl}/`], `${token}\n`); // piped on stdin
    expect(good.code, good.stderr).toBe(0);
    expect(good.stderr).toMatch(/logged in to http:\/\/127\.0\.0\.1:\d+ as org_owner\./);
    const credentials = join(homes.ledgerHome, 'credentials');
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    // One entry per service origin (docs/CLI.md "Several services"), this one the current login.
    expect(readJson(credentials)).toEqual({ current: stack.baseUrl, origins: { [stack.baseUrl]: { url: stack.baseUrl, token, expires_at: null } } });
    await login(stack.baseUrl, token, env, homes.root);
  });

  it('refuses to use credentials that others can read', async () => {
    const credentials = join(homes.ledgerHome, 'credentials');
    chmodSync(credentials, 0o640);
    try {
      const run = await cli(['agent', 'init', '--tool', 'sdk']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/credentials at .* can be read or changed by others \(mode 640\); fix it with: chmod 600/);
    } finally {
      chmodSync(credentials, 0o600);
    }
  });
});

describe('agent init, submit, verify', () => {
  let receiptFile: string;
  const jwksFile = join(homes.root, 'jwks.json');

  it('init for an SDK agent prints its id and writes its files owner-only', async () => {
    const run = await cli(['agent', 'init', '--tool', 'sdk', '--agent-id', 'release-bot']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('release-bot\n');
    const dir = join(homes.ledgerHome, 'agents', 'release-bot');
    expect(statSync(join(dir, 'key')).mode & 0o777).toBe(0o600);
    expect(readJson(join(dir, 'config.json'))).toMatchObject({ agent_id: 'release-bot', tool: 'sdk', on_error: 'deny', url: stack.baseUrl });
    expect(readJson(join(dir, 'chain.json'))).toEqual({ seq_no: 0, chain_hash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    const unknown = await cli(['agent', 'init', '--tool', 'emacs']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown tool "emacs": use one of augment, claudecode/);
  });

  it('submit prints a receipt that verify checks offline; one changed byte fails it', async () => {
    const payloadFile = join(homes.root, 'payload.json');
    writeFileSync(payloadFile, '{"version": "v42", "approved_by": "ops"}');
    const run = await cli(['submit', '--agent', 'release-bot', '--type', 'deploy.start', '--verb', 'deploy', '--target', 'api@v42', '--payload-file', payloadFile]);
    expect(run.code, run.stderr).toBe(0);
    const output = JSON.parse(run.stdout);
    expect(output.receipt.seq_no).toBe(1);
    expect(output.record).toMatchObject({ operation_type: 'deploy.start', action: { verb: 'deploy', target: 'api@v42' }, payload: { version: 'v42', approved_by: 'ops' } });
    receiptFile = join(homes.root, 'receipt.json');
    writeFileSync(receiptFile, run.stdout);
    writeFileSync(jwksFile, JSON.stringify(await (await fetch(`${stack.baseUrl}/.well-known/service/jwks.json`)).json()));

    const ok = await cli(['verify', receiptFile, '--jwks', jwksFile]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/ok +service signature/);
    expect(ok.stdout).toMatch(/receipt verified\n$/);

    const json = await cli(['verify', receiptFile, '--jwks', `${stack.baseUrl}/.well-known/service/jwks.json`, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'receipt', valid: true, checks: expect.arrayContaining([{ name: 'agent signature', ok: true, detail: expect.any(String) }]) });

    // One byte: the target's last character.
    const tampered = join(homes.root, 'tampered.json');
    writeFileSync(tampered, readFileSync(receiptFile, 'utf8').replace('"api@v42"', '"api@v43"'));
    const bad = await cli(['verify', tampered, '--jwks', jwksFile]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/FAIL +chain hash/);
    expect(bad.stdout).toMatch(/NOT verified \(2 checks failed\)/);
    const badJson = await cli(['verify', tampered, '--jwks', jwksFile, '--json']);
    expect(JSON.parse(badJson.stdout).valid).toBe(false);
  });

  it('verify explains unreadable input and refuses a JWKS that is not one', async () => {
    const missing = await cli(['verify', join(homes.root, 'nope.json'), '--jwks', jwksFile]);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringMatching(/cannot read .*nope\.json: ENOENT/)]);
    const notJwks = await cli(['verify', receiptFile, '--jwks', receiptFile]);
    expect(notJwks.stderr).toMatch(/is not a JWKS/);
  });

  it('a key file others can read is refused with the chmod that fixes it', async () => {
    const key = join(homes.ledgerHome, 'agents', 'release-bot', 'key');
    chmodSync(key, 0o644);
    try {
      const run = await cli(['submit', '--agent', 'release-bot', '--type', 'deploy.start', '--verb', 'deploy']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/agent key at .*key can be read or changed by others \(mode 644\); fix it with: chmod 600 /);
    } finally {
      chmodSync(key, 0o600);
    }
  });

  it('status shows the head, the service status and the last errors', async () => {
    const run = await cli(['status', '--agent', 'release-bot']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/agent release-bot\n {2}tool +sdk \(no hook installed\)/);
    expect(run.stdout).toMatch(/status +active/);
    expect(run.stdout).toMatch(/head +seq_no 1 /);
    const json = await cli(['status', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ agent_id: 'release-bot', service: expect.objectContaining({ status: 'active', seq_no: 1 }) })]);
  });
});

describe('agent init and uninstall of a coding tool', () => {
  it('installs into the existing settings, a second init changes nothing, uninstall restores every byte', async () => {
    const home = join(homes.root, 'tool-home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const settings = join(home, '.claude', 'settings.json');
    copyFileSync(join(FIXTURES, 'configs', 'claudecode', '.claude', 'settings.json'), settings);
    const original = readFileSync(settings);
    const toolEnv = { ...env, HOME: home };
    const first = await runCli(['agent', 'init', '--tool', 'claudecode', '--agent-id', 'laptop-claude'], { env: toolEnv });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/Claude Code: hook installed \(user scope\) in\n {2}.*\.claude\/settings\.json/);
    const installed = readFileSync(settings);
    const second = await runCli(['agent', 'init', '--tool', 'claudecode', '--agent-id', 'laptop-claude'], { env: toolEnv });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('laptop-claude\n');
    expect(second.stderr).toMatch(/hook already installed \(user scope\); nothing changed/);
    expect(readFileSync(settings)).toEqual(installed);
    const other = await runCli(['agent', 'init', '--tool', 'cursor', '--agent-id', 'laptop-claude'], { env: toolEnv });
    expect(other.stderr).toMatch(/already set up here for claudecode; pick another --agent-id/);

    const uninstall = await runCli(['agent', 'uninstall', '--agent', 'laptop-claude'], { env: toolEnv });
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(uninstall.stderr).toMatch(/restored +.*settings\.json/);
    expect(readFileSync(settings)).toEqual(original);
  });

  it('writes a hook running the copy under AGENT_LEDGER_HOME; an earlier hook of another command (a clone\'s CLI) is replaced, not doubled', async () => {
    const home = join(homes.root, 'moved-home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const settings = join(home, '.claude', 'settings.json');
    copyFileSync(join(FIXTURES, 'configs', 'claudecode', '.claude', 'settings.json'), settings);
    const toolEnv = { ...env, HOME: home, PATH: dirname(process.execPath) };
    const agentId = 'moved-claude';
    const ours = () => (readJson(settings).hooks.PreToolUse as { hooks: { command: string }[] }[]).flatMap((group) => group.hooks.map((hook) => hook.command)).filter((command) => command.includes(agentId));
    const first = await runCli(['agent', 'init', '--tool', 'claudecode', '--agent-id', agentId], { env: toolEnv });
    expect(first.code, first.stderr).toBe(0);
    const copy = join(homes.ledgerHome, 'cli', 'agent-ledger.cjs');
    expect(ours()).toEqual([`${process.execPath} ${copy} hook claudecode --agent ${agentId}`]);
    expect(readFileSync(copy)).toEqual(readFileSync(CLI));

    // As an earlier version left it: the hook runs the CLI inside a clone, by its absolute path.
    const old = `${process.execPath} /home/dev/src/agent-ledger/client/dist/cli.cjs hook claudecode --agent ${agentId}`;
    writeFileSync(settings, readFileSync(settings, 'utf8').replace(ours()[0]!, old));
    const configFile = join(homes.ledgerHome, 'agents', agentId, 'config.json');
    const config = readJson(configFile);
    config.install.command = old;
    delete config.install.cli;
    writeFileSync(configFile, JSON.stringify(config));
    const again = await runCli(['agent', 'init', '--tool', 'claudecode', '--agent-id', agentId], { env: toolEnv });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`earlier hook (${old}) taken out`);
    expect(ours()).toEqual([`${process.execPath} ${copy} hook claudecode --agent ${agentId}`]);
    expect(readJson(configFile).install).toMatchObject({ command: ours()[0], cli: [process.execPath, copy] });
    expect(readFileSync(settings, 'utf8')).toContain('~/.claude/hooks/block-rm.sh'); // the person's own hook stays
  });

  it('a settings file that does not parse stops init before anything is registered or written', async () => {
    const home = join(homes.root, 'broken-home');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(join(home, '.gemini', 'settings.json'), '{"ui": {"theme": "GitHub",}}');
    const run = await runCli(['agent', 'init', '--tool', 'gemini', '--agent-id', 'broken-gemini'], { env: { ...env, HOME: home } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/settings\.json is not valid JSON \(\w+ at line 1, column \d+\); fix it first: nothing was changed/);
    expect(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8')).toBe('{"ui": {"theme": "GitHub",}}');
    const status = await fetch(`${stack.baseUrl}/v1/agents/broken-gemini`, { headers: { authorization: `Bearer ${token}` } });
    expect(status.status).toBe(404);
  });

  it('scope a tool does not have is refused', async () => {
    const run = await cli(['agent', 'init', '--tool', 'kimi', '--scope', 'project']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/kimi has no project configuration: use --scope user/);
  });
});

describe('API token expiry and rejection', () => {
  const t = tempHomes('expiry');
  const toolEnv = { ...t.env, HOME: join(t.root, 'home') };
  const run = (args: string[], input?: string) => runCli(args, { env: toolEnv, timeoutMs: 60_000, ...(input === undefined ? {} : { input }) });
  const page = () => `${stack.baseUrl}/tokens`;
  const esc = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const agentId = 'expiry-claude';
  const errorsLog = () => readFileSync(join(t.ledgerHome, 'agents', agentId, 'errors.log'), 'utf8');
  const hook = () => runCli(['hook', 'claudecode', '--agent', agentId], { env: toolEnv, input: fixture('events/claudecode.json') });
  /** A token of the owner's, seeded with the expiry given (Unix ms). */
  const ownerToken = (expiresAt: number | null) => seedToken(owner.userId, 'api', { expires_at: expiresAt, org_id: orgId });
  /** The credentials a login made before the token stopped working left behind. */
  const storeCredentials = (secret: string, expiresAt: number | null) => storeLogin(t.ledgerHome, stack.baseUrl, secret, { expiresAt, current: true });
  const denyReason = (stdout: string): string => {
    const output = JSON.parse(stdout).hookSpecificOutput;
    expect(output).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    return output.permissionDecisionReason as string;
  };

  it('login says whom the token acts for, the organization and the expiry; a token id is refused unsent; UNAUTHORIZED points at the console page', async () => {
    // Port 9 answers nothing: had the id been sent, login would say it could not reach the service.
    const id = await run(['login', '--url', 'http://127.0.0.1:9'], `${randomUUID()}\n`);
    expect(id.code).toBe(1);
    expect(id.stderr).toMatch(/that is a token id, not the token: copy the token itself .* from the console's API tokens page, http:\/\/127\.0\.0\.1:9\/tokens\n$/);

    const bad = await run(['login', '--url', stack.baseUrl], `alt_${'A'.repeat(43)}\n`);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`did not accept the token (UNAUTHORIZED); make a new one on the console's API tokens page, ${page()}, and log in with it`);
    expect(bad.stderr).not.toMatch(/POST \/v1\/auth\/token/);

    const never = await run(['login', '--url', stack.baseUrl], `${token}\n`);
    expect(never.code, never.stderr).toBe(0);
    expect(never.stderr).toContain(`logged in to ${stack.baseUrl} as ${owner.email} (org_owner user), role org_owner`);
    expect(never.stderr).toContain(`organization  CLI (${orgId})`);
    expect(never.stderr).toMatch(/token +never expires\n/);

    const expiresAt = Date.now() + 89.5 * 86_400_000;
    const long = await run(['login', '--url', stack.baseUrl], `${await ownerToken(expiresAt)}\n`);
    expect(long.code, long.stderr).toBe(0);
    expect(long.stderr).toContain(`token         expires ${new Date(expiresAt).toISOString().slice(0, 16).replace('T', ' ')} UTC, in 89 days\n`);
    expect(long.stderr).not.toMatch(/WARNING/);
    expect(readJson(join(t.ledgerHome, 'credentials')).origins[stack.baseUrl].expires_at).toBe(Math.floor(expiresAt / 1000));
  });

  it('a token expiring in 1 day: login, status and doctor warn, and the hook logs it to errors.log once a day', async () => {
    const soon = await run(['login', '--url', stack.baseUrl], `${await ownerToken(Date.now() + 36 * 3_600_000)}\n`);
    expect(soon.code, soon.stderr).toBe(0);
    const warning = new RegExp(`the API token expires in 1 day \\(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\); make a new one at ${esc(page())} and run \`agent-ledger login --url ${esc(stack.baseUrl)}\``);
    expect(soon.stderr).toMatch(new RegExp(`WARNING +${warning.source}`));
    const init = await run(['agent', 'init', '--tool', 'claudecode', '--agent-id', agentId]);
    expect(init.code, init.stderr).toBe(0);

    const status = await run(['status', '--agent', agentId]);
    expect(status.code, status.stdout).toBe(0); // a warning, not a failure
    expect(status.stdout).toMatch(new RegExp(`^login ${esc(stack.baseUrl)}\\n {2}acts for +${esc(owner.email)}`));
    expect(status.stdout).toMatch(new RegExp(`\\n {2}WARNING +${warning.source}`));
    const json = await run(['status', '--agent', agentId, '--json']);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ agent_id: agentId })]);
    expect(json.stderr).toMatch(warning);

    const doctor = await run(['doctor', '--agent', agentId]);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).toMatch(new RegExp(`login ${esc(stack.baseUrl)}: ok\\n {2}ok +the API token acts for ${esc(owner.email)} .*, in organization CLI \\(${orgId}\\)`));
    expect(doctor.stdout).toMatch(new RegExp(`\\n {2}WARN +${warning.source}`));

    for (let i = 0; i < 2; i++) {
      const allowed = await hook();
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(allowed.stdout).not.toMatch(/deny/);
    }
    expect(errorsLog().match(new RegExp(warning.source, 'g'))).toHaveLength(1);
  });

  it('after expiry the hook denies naming the console page and login, and doctor and status say "rejected: expired"', async () => {
    const expiredAt = Date.now() - 60_000;
    storeCredentials(await ownerToken(expiredAt), Math.floor(expiredAt / 1000));
    const denied = await hook();
    expect(denied.code).toBe(0);
    const reason = denyReason(denied.stdout);
    expect(reason).toBe(`denied by agent-ledger: the API token has expired; make a new one at ${page()} and run \`agent-ledger login --url ${stack.baseUrl}\`; tool use blocked`);
    expect(errorsLog()).toContain(`the API token has expired; make a new one at ${page()}`);

    const doctor = await run(['doctor', '--agent', agentId]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`FIX  the service at ${stack.baseUrl} answers, but the API token is rejected: expired; make a new one at ${page()} and run \`agent-ledger login --url ${stack.baseUrl}\``);
    expect(doctor.stdout).not.toMatch(/does not answer/);
    const status = await run(['status', '--agent', agentId]);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/token +the API token is rejected: expired; make a new one at /);
    expect(status.stdout).toMatch(/status +unknown: the API token is rejected: expired/);
  });

  it('a revoked token: the hook denies saying so, and doctor says "rejected: revoked"', async () => {
    // Issued and revoked through the API, as the console's API tokens page does.
    const session = await seedToken(owner.userId, 'session');
    const issued = await apiClient(stack.baseUrl, session)('POST', '/v1/auth/token', { name: 'expiry test' });
    expect(issued.status).toBe(200);
    storeCredentials(issued.body.token, issued.body.expires_at);
    expect((await hook()).stdout).not.toMatch(/deny/);
    expect((await apiClient(stack.baseUrl, session)('DELETE', `/v1/auth/tokens/${issued.body.token_id}`)).status).toBe(200);
    const reason = denyReason((await hook()).stdout);
    expect(reason).toBe(`denied by agent-ledger: the API token was revoked; make a new one at ${page()} and run \`agent-ledger login --url ${stack.baseUrl}\`; tool use blocked`);
    const doctor = await run(['doctor', '--agent', agentId]);
    expect(doctor.stdout).toContain('answers, but the API token is rejected: revoked; make a new one at');
  });
});
