/**
 * Unproven agent keys on the command line (docs/PROTOCOL.md "Proof of possession"): /v1 lets
 * a key be registered without its proof, so `agent-ledger verify` lists such a key by agent
 * and kid as a warning and still verifies, and fails with `--require-key-proofs`; an export
 * whose keys all carry proofs passes with it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const FIXTURES = fileURLToPath(new URL('../../protocol/test/fixtures/exports/', import.meta.url));
const unproven = join(FIXTURES, 'cases', 'key-unproven.json');
const genuine = join(FIXTURES, 'cases', 'genuine-all.json');
const jwks = join(FIXTURES, 'jwks.json');
const home = mkdtempSync(join(tmpdir(), 'agent-ledger-key-proofs-'));
const cli = (...args: string[]) => runCli(args, { env: { AGENT_LEDGER_HOME: home } });

describe('verify and unproven keys', () => {
  it('an export with an unproven key verifies (exit 0), the key named as a warning', async () => {
    const run = await cli('verify', unproven, '--jwks', jwks);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/warning: agent agent-beta key \S+: possession not proven \(.*registered without one\)/);
    const json = JSON.parse((await cli('verify', unproven, '--jwks', jwks, '--json')).stdout);
    expect(json.unproven_keys.map((k: { agent_id: string }) => k.agent_id)).toEqual(['agent-beta']);
  });

  it('with --require-key-proofs the same export fails (exit 1), naming the key', async () => {
    const run = await cli('verify', unproven, '--jwks', jwks, '--require-key-proofs');
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/failed: agent_keys\[\d+\]: agent agent-beta key \S+: possession not proven .*proofs are required/);
    expect(run.stdout).not.toContain('warning:');
  });

  it('an export whose keys were all registered with proofs passes --require-key-proofs (exit 0)', async () => {
    const run = await cli('verify', genuine, '--jwks', jwks, '--require-key-proofs');
    expect(run.stdout).not.toContain('possession not proven');
    expect(run.code).toBe(0);
  });
});
