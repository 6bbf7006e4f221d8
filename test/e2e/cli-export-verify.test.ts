/**
 * The client CLI against exports this service makes (docs/API.md §4.8, docs/EXPORT.md):
 * `agent-ledger export` creates, follows and downloads a JSON and a PDF export from the local
 * stack, and `agent-ledger verify` checks both offline against the JWKS fetched from the
 * service; one changed byte of the bundle makes it fail.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveLogin } from '../../client/src/local/credentials.js';
import { runCli } from '../../client/test/support/cli.js';
import { newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { seedOperations } from '../support/operation-seed.js';

const stack = useLedgerStack();
const home = mkdtempSync(join(tmpdir(), 'cli-export-'));
const env = { AGENT_LEDGER_HOME: home, HOME: home };
const start = Date.now() - 60_000;
let jwksFile: string;

beforeAll(async () => {
  const org = await stack.org('org_owner', 'compliance_auditor');
  const agent = { agentId: uniqueAgentId('cli'), key: newKey() };
  await registerAgent(org.api.org_owner, agent.agentId, [agent.key]);
  await seedOperations(org.orgId, [0, 1, 2].map((i) => ({ agent, createdAt: start + 1_000 + i, subject: { path: `src/${i}.ts` } })));
  saveLogin({ url: stack.baseUrl, token: org.users.compliance_auditor.token }, join(home, 'credentials'));
  jwksFile = join(home, 'jwks.json');
  writeFileSync(jwksFile, await (await fetch(`${stack.baseUrl}/.well-known/service/jwks.json`)).text());
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('agent-ledger export and verify against the service', () => {
  it.each(['json', 'pdf'] as const)('%s: exported, downloaded and verified with the service JWKS', async (format) => {
    const out = join(home, `export.${format}`);
    const exported = await runCli(['export', '--from', String(start), '--to', String(Date.now()), '--format', format, '--out', out], { env, timeoutMs: 60_000 });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout.trim()).toBe(out);
    const verified = await runCli(['verify', out, '--jwks', jwksFile], { env });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toContain('3 operations of 1 agents');
    expect(verified.stdout).toContain('signatures checked against the JWKS you gave');
  });

  it('fails on a bundle with one changed byte', async () => {
    const file = join(home, 'export.json');
    const bytes = readFileSync(file);
    const at = bytes.indexOf(Buffer.from('"signature":"')) + 20;
    bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41;
    writeFileSync(file, bytes);
    const verified = await runCli(['verify', file, '--jwks', jwksFile], { env });
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain('NOT verified');
  });
});
