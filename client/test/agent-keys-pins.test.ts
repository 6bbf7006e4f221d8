/**
 * Pinned agent keys on the command line (docs/EXPORT.md "Pinned agent keys"): `agent keys
 * --export` prints an agent's public key from its local key file, and `verify --agent-keys`
 * reports each agent pinned, unpinned or mismatched. The export whose agent key an operator
 * swapped and re-signed throughout (protocol/test/fixtures/exports) fails against the pins and
 * against an earlier genuine export (--since), and passes, agents unpinned, without either.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keyThumbprint } from '@agent-ledger/protocol';
import { runCli } from './support/cli.js';

const FIXTURES = fileURLToPath(new URL('../../protocol/test/fixtures/exports/', import.meta.url));
const swapped = join(FIXTURES, 'cases', 'agent-key-swapped-resigned.json');
const genuine = join(FIXTURES, 'cases', 'genuine-all.json');
const jwks = join(FIXTURES, 'jwks.json');
const pins = join(FIXTURES, 'pins.json');
const home = mkdtempSync(join(tmpdir(), 'agent-ledger-pins-'));
const cli = (...args: string[]) => runCli(args, { env: { AGENT_LEDGER_HOME: home } });

describe('verify --agent-keys', () => {
  it('fails the export whose agent key was swapped and re-signed, naming the agent (exit 1)', async () => {
    const run = await cli('verify', swapped, '--jwks', jwks, '--agent-keys', pins);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('agent agent-alpha: mismatched');
    expect(run.stdout).toContain('failed: agents.agent-alpha:');
    expect(run.stdout).toContain('agent agent-beta: pinned');
  });

  it('verifies the genuine export against the same pins (exit 0), an agent missing from them unpinned', async () => {
    const run = await cli('verify', genuine, '--jwks', jwks, '--agent-keys', pins);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('agent agent-alpha: pinned');
    expect(run.stdout).toContain('agent agent-gamma: unpinned');
  });

  it('without pins the swapped export verifies, every agent unpinned; --since the genuine one it fails naming the agent', async () => {
    const alone = await cli('verify', swapped, '--jwks', jwks);
    expect(alone.code).toBe(0);
    expect(alone.stdout).toContain('agent agent-alpha: unpinned');
    const since = await cli('verify', swapped, '--since', genuine, '--jwks', jwks);
    expect(since.code).toBe(1);
    expect(since.stdout).toMatch(/failed: log\.key_events\[0\]: the key history of agent agent-alpha in the newer export is not an extension of the older one/);
  });

  it('refuses pins that are not agent id to keys as wrong usage (exit 2)', async () => {
    const bad = join(home, 'bad-pins.json');
    writeFileSync(bad, JSON.stringify({ 'agent-alpha': ['not a key'] }));
    const run = await cli('verify', genuine, '--jwks', jwks, '--agent-keys', bad);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('pin 0 of agent agent-alpha');
  });
});

describe('agent keys --export', () => {
  it("prints the agent's public key from its key file, which then pins it", async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const dir = join(home, 'agents', 'build-bot');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'key'), privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ agent_id: 'build-bot', org_id: 'org-1', url: 'http://127.0.0.1:1', kid: 'build-bot-k1', tool: 'sdk' }));
    const run = await cli('agent', 'keys', '--export');
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as Record<string, { x: string; kid: string; thumbprint: string }[]>;
    const x = publicKey.export({ format: 'jwk' }).x as string;
    expect(printed).toEqual({ 'build-bot': [{ kty: 'OKP', crv: 'Ed25519', x, kid: 'build-bot-k1', thumbprint: keyThumbprint(x) }] });
    expect((await cli('agent', 'keys')).code).toBe(2);
  });
});
