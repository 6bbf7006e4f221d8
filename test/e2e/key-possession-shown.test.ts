/**
 * Whether each key's possession was proven, wherever a key is shown (docs/API.md §2.5
 * `possession_proven`; docs/PROTOCOL.md "Proof of possession"): the register and add-key
 * answers, GET /v1/agents/:agent_id (also for a key stored before the field existed, from its
 * key event), and the export's agent_keys. The key item's flag is table data: an insider with
 * table write access who marks an unproven key as proven gets an export whose claim the
 * verifier checks against the key history, and fails.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyExportBundle, type ExportBundle } from '@agent-ledger/protocol';
import { config } from '../../lambdas/config.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { ledgerKeys } from '../../lambdas/store/ledger-items.js';
import { downloadExport, exportWhenDone } from '../support/export-flow.js';
import type { Api } from '../support/http-client.js';
import { ClientChain, keyBody, newKey, uniqueAgentId } from '../support/ledger-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
const home = mkdtempSync(join(tmpdir(), 'possession-shown-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const PYTHON_SRC = fileURLToPath(new URL('../../python/src', import.meta.url));

/** The Python verifier (python/) on the bundle: Debian's python3 has `cryptography` (scripts/test-python.sh). */
function pythonVerify(bytes: Uint8Array, jwks: unknown): { status: number | null; out: string } {
  const file = join(home, 'export.json');
  const jwksFile = join(home, 'jwks.json');
  writeFileSync(file, bytes);
  writeFileSync(jwksFile, JSON.stringify(jwks));
  const run = spawnSync('/usr/bin/python3', ['-m', 'agent_ledger', 'verify', file, '--jwks', jwksFile], { env: { ...process.env, PYTHONPATH: PYTHON_SRC }, encoding: 'utf8' });
  return { status: run.status, out: run.stdout + run.stderr };
}
let orgId: string;
let owner: Api;
let auditor: Api;
const unproven = newKey('k-unproven');
const proven = newKey('k-proven');
let agentId: string;
let start: number;

const setFlag = (kid: string, expression: string, values?: Record<string, unknown>) =>
  dynamo().send(new UpdateCommand({ TableName: config().tableName, Key: ledgerKeys.key(orgId, agentId, kid), UpdateExpression: expression, ...(values ? { ExpressionAttributeValues: values } : {}) }));

async function exportOfAgent(): Promise<Uint8Array> {
  const created = await auditor('POST', '/v1/exports', { format: 'json', start_time: start, end_time: Date.now() + 1000, agent_id: agentId });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await exportWhenDone(auditor, created.body.export.export_id);
  return (await downloadExport(auditor, created.body.export.export_id, 'json')).bytes;
}

const keysOf = (bytes: Uint8Array) => (JSON.parse(Buffer.from(bytes).toString('utf8')) as ExportBundle).body.verification_material.agent_keys;

beforeAll(async () => {
  ({ orgId, api: { org_owner: owner, compliance_auditor: auditor } } = await stack.org('org_owner', 'compliance_auditor'));
  start = Date.now() - 1000;
  agentId = uniqueAgentId('possession-shown');
  // The original /v1 body (no proof), then a key added by our own client's body (with one).
  const registered = await owner('POST', '/v1/agents/register', { agent_id: agentId, integration_type: 'sdk', keys: [{ kid: unproven.kid, public_key: unproven.publicKey, algorithm: 'ed25519' }] });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  expect(registered.body.keys.map((k: { possession_proven: boolean }) => k.possession_proven)).toEqual([false]);
  const added = await owner('POST', `/v1/agents/${agentId}/keys`, keyBody(proven, orgId, agentId));
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  expect(added.body.key.possession_proven).toBe(true);
  const chain = new ClientChain(orgId, agentId, unproven);
  for (const key of [unproven, proven]) {
    chain.key = key;
    const { res } = await chain.submit(owner);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
});

const shown = async () => Object.fromEntries(((await auditor('GET', `/v1/agents/${agentId}`)).body.keys as { kid: string; possession_proven: unknown }[]).map((k) => [k.kid, k.possession_proven]));

describe('possession_proven', () => {
  it('GET /v1/agents/:agent_id says which key was proven', async () => {
    expect(await shown()).toEqual({ [unproven.kid]: false, [proven.kid]: true });
  });

  it('a key stored before the field existed takes it from its key event', async () => {
    for (const key of [unproven, proven]) await setFlag(key.kid, 'REMOVE possession_proven');
    try {
      expect(await shown()).toEqual({ [unproven.kid]: false, [proven.kid]: true });
    } finally {
      await setFlag(unproven.kid, 'SET possession_proven = :v', { ':v': false });
      await setFlag(proven.kid, 'SET possession_proven = :v', { ':v': true });
    }
  });

  it("the export's agent_keys carry it, and the verifier names the unproven key", async () => {
    const bytes = await exportOfAgent();
    expect(Object.fromEntries(keysOf(bytes).map((k) => [k.kid, k.possession_proven]))).toEqual({ [unproven.kid]: false, [proven.kid]: true });
    const jwks = (await auditor('GET', '/.well-known/service/jwks.json')).body;
    const report = verifyExportBundle(bytes, { jwks });
    expect(report.findings.filter((f) => f.status === 'failed')).toEqual([]);
    expect(report.unproven_keys.map((k) => k.kid)).toEqual([unproven.kid]);
    expect(verifyExportBundle(bytes, { jwks, requireKeyProofs: true }).valid).toBe(false);
    const python = pythonVerify(bytes, jwks);
    expect(python.status, python.out).toBe(0);
    expect(python.out).toContain(unproven.kid);
  });

  it('a table writer who marks the unproven key proven makes an export the verifier fails', async () => {
    await setFlag(unproven.kid, 'SET possession_proven = :v', { ':v': true });
    try {
      expect((await shown())[unproven.kid]).toBe(true);
      const bytes = await exportOfAgent();
      expect(keysOf(bytes).find((k) => k.kid === unproven.kid)?.possession_proven).toBe(true);
      const jwks = (await auditor('GET', '/.well-known/service/jwks.json')).body;
      const report = verifyExportBundle(bytes, { jwks });
      expect(report.valid).toBe(false);
      const python = pythonVerify(bytes, jwks);
      expect(python.status, python.out).toBe(1);
      expect(python.out).toMatch(/FAIL {2}key_possession/);
      expect(python.out).toContain(`possession_proven is true`);
      expect(report.findings.filter((f) => f.status === 'failed').map((f) => `${f.check}: ${f.reason}`)).toEqual([
        expect.stringMatching(new RegExp(`^key_possession: agent ${agentId} key ${unproven.kid}: possession_proven is true, but its register event .* carries no proof`)),
      ]);
    } finally {
      await setFlag(unproven.kid, 'SET possession_proven = :v', { ':v': false });
    }
  });
});
