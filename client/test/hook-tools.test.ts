/**
 * For each of the 15 coding tools: `agent init` installs the hook into the tool's own
 * configuration; the recorded sample event (test/fixtures/events/<flag>.json) is piped into
 * the built CLI exactly as that tool would run it; the answer is the tool's "allow" and the
 * ledger row carries the record of docs/HOOKS.md / docs/API.md §1 (type, subject, action, payload).
 * Then the agent is frozen and the same call gets the tool's own "deny".
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../test/support/test-stack.js';
import { seedOrg, seedUser } from '../../test/support/seed-identity.js';
import { apiClient, type Api } from '../../test/support/http-client.js';
import { TOOL_FLAGS, type ToolFlag } from '../src/tools/flags.js';
import { fixture, login, readJson, runCli, tempHomes } from './support/cli.js';
import { invokeHook, type ToolPlace } from './support/tool-runner.js';

let stack: TestStack;
let api: Api;
const homes = tempHomes('tools');

beforeAll(async () => {
  stack = await startTestStack();
  const orgId = await seedOrg('Hook tools');
  const owner = await seedUser(orgId, 'org_owner');
  api = apiClient(stack.baseUrl, owner.token);
  await login(stack.baseUrl, owner.token, homes.env, homes.root);
});
afterAll(() => stack?.stop());

/** What each tool's event says, as the record must carry it. */
const EXPECTED: Record<ToolFlag, { verb: string; target: string; session?: string }> = {
  claudecode: { verb: 'Bash', target: 'npm test -- --run', session: '9f2c1e4a-7b3d-4c8e-a1f0-2d5b6e7c8a90' },
  codex: { verb: 'Bash', target: 'cargo build --release', session: '0199a3f0-5c2e-7d41-9b8a-3e6f1c2d4b5a' },
  copilot: { verb: 'bash', target: 'git status --short', session: 'b4c2e8f1-3a5d-4e6f-8a9b-0c1d2e3f4a5b' },
  cursor: { verb: 'Shell', target: 'pnpm lint', session: 'c0ffee00-1234-4abc-9def-0123456789ab' },
  gemini: { verb: 'run_shell_command', target: 'npm run build', session: '5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9' },
  qwen: { verb: 'write_file', target: '/home/dev/shop/src/cart.py', session: '7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d' },
  augment: { verb: 'launch-process', target: 'make test', session: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d' },
  droid: { verb: 'Execute', target: 'docker compose up -d', session: 'f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b' },
  letta: { verb: 'Bash', target: 'ls -la' },
  kimi: { verb: 'Shell', target: 'rm -rf build', session: 'session_3c4d5e6f' },
  grok: { verb: 'bash', target: 'go test ./...', session: '019a6b2c-3d4e-7f50-a1b2-c3d4e5f6a7b8' },
  kirocli: { verb: 'execute_bash', target: 'terraform plan' },
  kiroide: { verb: 'fsWrite', target: 'src/app.ts' },
  cline: { verb: 'execute_command', target: 'npm install', session: '1763633500123' },
  opencode: { verb: 'bash', target: 'bun test', session: 'ses_5b1c2d3e4f5a6b7c8d9e0f1a' },
};

/** The tool_input each tool's event carries, as received. */
function toolInputOf(flag: ToolFlag, event: Record<string, any>): unknown { // eslint-disable-line @typescript-eslint/no-explicit-any -- fixture JSON
  switch (flag) {
    case 'copilot':
      return event.toolArgs;
    case 'grok':
      return event.toolInput;
    case 'cline':
      return event.preToolUse.parameters;
    case 'opencode':
      return event.output.args;
    default:
      return event.tool_input;
  }
}

/** The tool's "allow": exit 0, and the JSON the tool reads where it wants one. */
function expectAllow(flag: ToolFlag, run: { code: number | null; stdout: string; stderr: string }) {
  expect(run.code, run.stderr).toBe(0);
  if (flag === 'cursor') expect(JSON.parse(run.stdout)).toEqual({ permission: 'allow' });
  else if (flag === 'cline') expect(JSON.parse(run.stdout)).toEqual({ cancel: false });
  else expect(run.stdout).toBe('');
}

/** The tool's own deny signal with a one-line reason. */
function expectDeny(flag: ToolFlag, run: { code: number | null; stdout: string; stderr: string }, reason: RegExp) {
  switch (flag) {
    case 'copilot':
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(reason) });
      return;
    case 'cline':
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ cancel: true, errorMessage: expect.stringMatching(reason) });
      return;
    case 'cursor':
      expect(run.code).toBe(2);
      expect(JSON.parse(run.stdout)).toMatchObject({ permission: 'deny', user_message: expect.stringMatching(reason) });
      return;
    case 'grok':
      expect(run.code).toBe(2);
      expect(JSON.parse(run.stdout)).toMatchObject({ decision: 'deny', reason: expect.stringMatching(reason) });
      return;
    case 'claudecode':
    case 'codex':
      // A decision, not a failed hook: exit 0 and the deny with its reason on stdout.
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(reason) } });
      return;
    case 'gemini':
    case 'qwen':
      // Gemini CLI reports exit 2 as a failed hook and reads exit 1 as allow: exit 0 with the decision.
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ decision: 'deny', reason: expect.stringMatching(reason) });
      return;
    default:
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr.trim()).toMatch(reason);
  }
}

describe.concurrent('hooks of the 15 coding tools against the local stack', () => {
  for (const flag of TOOL_FLAGS) {
    it(`${flag}: records the call and allows it, denies it once the agent is frozen, and allows the next one after an unfreeze`, async () => {
      const agentId = `${flag}-hook-e2e`;
      const toolHome = join(homes.root, `home-${flag}`);
      const projectDir = join(homes.root, `project-${flag}`);
      mkdirSync(projectDir, { recursive: true });
      const scope = flag === 'kiroide' ? 'project' : 'user';
      const env = { ...homes.env, HOME: toolHome };
      const place: ToolPlace = { home: toolHome, projectDir, scope, env };

      const init = await runCli(['agent', 'init', '--tool', flag, '--agent-id', agentId, '--scope', scope, '--project-dir', projectDir], { env, cwd: projectDir });
      expect(init.code, init.stderr).toBe(0);
      expect(init.stdout).toBe(`${agentId}\n`);

      const event = fixture(`events/${flag}.json`);
      const allowed = await invokeHook(flag, place, event);
      expectAllow(flag, allowed);

      const chain = readJson(join(homes.ledgerHome, 'agents', agentId, 'chain.json'));
      expect(chain.seq_no).toBe(1);
      const { status, body } = await api('GET', `/v1/operations/${chain.operation_id}`);
      expect(status).toBe(200);
      const parsed = JSON.parse(event);
      const expected = EXPECTED[flag];
      expect(body.operation).toMatchObject({ agent_id: agentId, seq_no: 1, operation_type: 'tool.invoke', chain_hash: chain.chain_hash });
      expect(JSON.parse(body.operation.subject)).toEqual({ kind: 'workspace', id: '/home/dev/shop' });
      expect(JSON.parse(body.operation.action)).toEqual({ verb: expected.verb, target: expected.target });
      expect(body.payload).toEqual({ client: flag, ...(expected.session ? { session_id: expected.session } : {}), tool_input: toolInputOf(flag, parsed) });

      expect((await api('POST', `/v1/agents/${agentId}/freeze`, { reason: 'e2e: hook must deny' })).status).toBe(200);
      const denied = await invokeHook(flag, place, event);
      expectDeny(flag, denied, new RegExp(`^denied by agent-ledger: agent ${agentId} is frozen$`));
      expect((await api('GET', `/v1/agents/${agentId}`)).body.chain.seq_no).toBe(1);
      expect(readJson(join(homes.ledgerHome, 'agents', agentId, 'status-cache.json')).status).toBe('frozen');

      // An unfreeze is honoured at the very next tool use, though the status cache (60 s) still says frozen.
      expect((await api('POST', `/v1/agents/${agentId}/unfreeze`, { reason: 'e2e: incident over' })).status).toBe(200);
      expectAllow(flag, await invokeHook(flag, place, event));
      expect((await api('GET', `/v1/agents/${agentId}`)).body.chain.seq_no).toBe(2);
      expect(readJson(join(homes.ledgerHome, 'agents', agentId, 'status-cache.json')).status).toBe('active');
    });
  }
});
