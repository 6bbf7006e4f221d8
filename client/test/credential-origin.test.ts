/**
 * An API token goes only to the service origin that issued it (docs/CLI.md "Several
 * services"). Two recording listeners, A and B, in front of one local stack are two services
 * (two origins, two organizations): after `login` to A, an agent at A and `login` to B, the
 * hook, `doctor` and `status` send A's token to A and B's token never reaches A (before the
 * fix, the one credentials file held B's token by then, and the hook sent it to A). Without a
 * login for A the hook denies naming `agent-ledger login --url A`, and sends nothing; a
 * redirect from A to B is not followed, so A's token never reaches B; a credentials file
 * written by an older `login` still works for its own origin.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../test/support/test-stack.js';
import { seedOrg, seedUser, type SeededUser } from '../../test/support/seed-identity.js';
import { apiClient, type Api } from '../../test/support/http-client.js';
import { fixture, login, readJson, runCli, tempHomes, type Run } from './support/cli.js';
import { recordingProxy, type RecordingProxy } from './support/recording-proxy.js';

let stack: TestStack;
let a: RecordingProxy;
let b: RecordingProxy;
let ownerA: SeededUser;
let ownerB: SeededUser;
let apiA: Api;
const homes = tempHomes('origin');
const credentialsFile = join(homes.ledgerHome, 'credentials');
const event = fixture('events/claudecode.json');
const AGENT = 'origin-a-claude';

const bearer = (token: string) => `Bearer ${token}`;
const cli = (args: string[], home = homes.env.HOME) => runCli(args, { env: { ...homes.env, HOME: home }, timeoutMs: 60_000 });
const hook = (agentId = AGENT) => runCli(['hook', 'claudecode', '--agent', agentId], { env: homes.env, input: event });
const headOf = async (agentId = AGENT) => (await apiA('GET', `/v1/agents/${agentId}`)).body.chain.seq_no as number;

async function initAgent(agentId: string, onError: 'deny' | 'allow' = 'deny'): Promise<void> {
  const run = await cli(['agent', 'init', '--tool', 'claudecode', '--agent-id', agentId, '--on-error', onError], join(homes.root, `home-${agentId}`));
  if (run.code !== 0) throw new Error(run.stderr);
}

/** The reason of a deny in Claude Code's protocol (exit 0, permissionDecision "deny" on stdout). */
function denyReason(run: Run): string {
  expect(run.code).toBe(0);
  const output = JSON.parse(run.stdout).hookSpecificOutput;
  expect(output).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
  return output.permissionDecisionReason as string;
}

function expectAllowed(run: Run) {
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout, run.stderr).toBe('');
}

beforeAll(async () => {
  stack = await startTestStack({ env: { LEDGER_RATE_LIMIT_RPS: '1000' } });
  ownerA = await seedUser(await seedOrg('Origin A'), 'org_owner');
  ownerB = await seedUser(await seedOrg('Origin B'), 'org_owner');
  apiA = apiClient(stack.baseUrl, ownerA.token);
  a = await recordingProxy(stack.baseUrl);
  b = await recordingProxy(stack.baseUrl);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await stack?.stop();
});

describe('one token per service origin', () => {
  it("login to A, an agent at A, login to B: the hook, doctor and status send A's token to A, and B's token never reaches A", async () => {
    await login(a.url, ownerA.token, homes.env, homes.root);
    await initAgent(AGENT);
    await login(b.url, ownerB.token, homes.env, homes.root);
    const before = await headOf();

    const run = await hook();
    // The fault this test exists for: B's token sent to A.
    expect(a.authorizations()).not.toContain(bearer(ownerB.token));
    expectAllowed(run);
    expect(await headOf()).toBe(before + 1);
    const submitted = a.requests.filter((received) => received.method === 'POST' && received.path === '/v1/operations');
    expect(submitted).toHaveLength(1);
    expect(submitted[0]!.authorization).toBe(bearer(ownerA.token));

    const doctor = await cli(['doctor', '--agent', AGENT]);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).toContain(`login ${a.url}: ok`);
    const status = await cli(['status', '--agent', AGENT]);
    expect(status.code, status.stdout).toBe(0);
    expect(status.stdout).toMatch(/status +active/);
    // Without --agent both are checked: A with A's token, B (the current login) with B's.
    expect((await cli(['doctor'])).code).toBe(0);

    // doctor's one request without a token: the client files the service hands out (docs/CLI.md "Installing the CLI from the service").
    for (const proxy of [a, b]) expect(new Set(proxy.requests.filter((received) => received.authorization === undefined).map((received) => received.path))).toEqual(new Set(['/client/index.json']));
    expect(a.authorizations().every((value) => value === undefined || value === bearer(ownerA.token))).toBe(true);
    expect(b.authorizations().every((value) => value === undefined || value === bearer(ownerB.token))).toBe(true);
    expect(b.requests.some((received) => received.path === '/v1/operations')).toBe(false);

    // The file: one entry per origin, B the current login (what `agent init` and `export` use).
    const stored = readJson(credentialsFile);
    expect(stored.current).toBe(b.url);
    expect(Object.keys(stored.origins).sort()).toEqual([a.url, b.url].sort());
    expect(stored.origins[a.url]).toMatchObject({ token: ownerA.token, expires_at: null });
    expect(stored.origins[b.url]).toMatchObject({ token: ownerB.token, expires_at: null });
  }, 180_000);

  it("login --url X replaces X's entry only, whatever the spelling of X's origin", async () => {
    const spelled = `${b.url.replace('http://', 'HTTP://')}/`;
    await login(spelled, ownerB.token, homes.env, homes.root);
    const stored = readJson(credentialsFile);
    expect(Object.keys(stored.origins).sort()).toEqual([a.url, b.url].sort());
    expect(stored.origins[a.url].token).toBe(ownerA.token);
    expect(stored.current).toBe(b.url);
  });

  it("without a login for A the hook denies naming `agent-ledger login --url A` and sends nothing; doctor and status name A", async () => {
    const full = readJson(credentialsFile);
    const { [a.url]: _removed, ...others } = full.origins;
    writeFileSync(credentialsFile, JSON.stringify({ ...full, origins: others }), { mode: 0o600 });
    try {
      const sent = a.requests.length;
      const before = await headOf();
      const reason = denyReason(await hook());
      expect(reason).toContain(`no API token for ${a.url}`);
      expect(reason).toContain(`run \`agent-ledger login --url ${a.url}\``);
      expect(reason).toMatch(/; tool use blocked/);
      expect(readFileSync(join(homes.ledgerHome, 'agents', AGENT, 'errors.log'), 'utf8')).toContain(`no API token for ${a.url}`);
      expect(a.requests.length).toBe(sent); // not B's token, not any
      expect(await headOf()).toBe(before);

      const doctor = await cli(['doctor', '--agent', AGENT]);
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toContain(`FIX  no API token for ${a.url}`);
      expect(doctor.stdout).toContain(`agent-ledger login --url ${a.url}`);
      const status = await cli(['status', '--agent', AGENT]);
      expect(status.code).toBe(1);
      expect(status.stdout).toContain(`no API token for ${a.url}`);
      expect(a.requests.length).toBe(sent);
    } finally {
      writeFileSync(credentialsFile, JSON.stringify(full), { mode: 0o600 });
    }
    expectAllowed(await hook());
  }, 120_000);

  it.each([307, 302])("a redirect (%i) from A to B is not followed: A's token never reaches B", async (code) => {
    const before = await headOf();
    const atB = b.requests.length;
    a.redirectTo(b.url, code);
    try {
      const reason = denyReason(await hook());
      expect(reason).toMatch(new RegExp(`redirect.*not followed`));
      expect(reason).toMatch(/tool use blocked \(on-error deny\)/);
      const doctor = await cli(['doctor', '--agent', AGENT]);
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toMatch(/redirect/);
    } finally {
      a.redirectTo(undefined);
    }
    expect(b.requests.slice(atB)).toEqual([]);
    expect(b.authorizations()).not.toContain(bearer(ownerA.token));
    expect(await headOf()).toBe(before);
  }, 120_000);

  it('a credentials file an older login wrote (one {url, token}) still works for its own origin, and the next login keeps it', async () => {
    const home = tempHomes('origin-old');
    mkdirSync(home.ledgerHome, { recursive: true });
    const env = { ...home.env, HOME: join(home.root, 'home') };
    writeFileSync(join(home.ledgerHome, 'credentials'), JSON.stringify({ url: a.url, token: ownerA.token }), { mode: 0o600 });
    const init = await runCli(['agent', 'init', '--tool', 'claudecode', '--agent-id', 'origin-old-claude'], { env });
    expect(init.code, init.stderr).toBe(0);
    const sent = a.requests.length;
    expectAllowed(await runCli(['hook', 'claudecode', '--agent', 'origin-old-claude'], { env, input: event }));
    expect(a.requests.slice(sent).map((received) => received.authorization)).toEqual([bearer(ownerA.token)]);

    await login(b.url, ownerB.token, env, home.root);
    const stored = readJson(join(home.ledgerHome, 'credentials'));
    expect(stored.current).toBe(b.url);
    expect(stored.origins[a.url]).toMatchObject({ url: a.url, token: ownerA.token });
    const after = a.requests.length;
    expectAllowed(await runCli(['hook', 'claudecode', '--agent', 'origin-old-claude'], { env, input: event }));
    expect(a.requests.slice(after).map((received) => received.authorization)).toEqual([bearer(ownerA.token)]);
  }, 120_000);
});
