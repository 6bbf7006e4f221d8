/**
 * An insider with write access to the data bucket (not to the service) destroys payloads
 * behind the service's back: deletes one object, overwrites another with bytes that are not
 * JSON, a third with other JSON, and drops a small payload's copy from its row. The record
 * commits to payload_hash and the row names the stored copy, so each of these is destruction,
 * never an erasure: the verify endpoint fails its signature check, and the export (which
 * marks every real erasure) leaves the payload out unmarked, or carries the forged one, so
 * that the TypeScript verifier, `agent-ledger verify` (on the JSON and on the PDF) and the
 * Python verifier all fail it. An owner's erasure in the same export stays "not covered", and
 * an export whose only absent payload is an owner's erasure verifies in all three.
 */
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalize, verifyExportBundle, type Jwk } from '@agent-ledger/protocol';
import { runCli } from '../../client/test/support/cli.js';
import { config } from '../../lambdas/config.js';
import { dynamo, s3 } from '../../lambdas/store/clients.js';
import { ledgerKeys } from '../../lambdas/store/ledger-items.js';
import { downloadExport, expectVerified, exportWhenDone } from '../support/export-flow.js';
import type { Api } from '../support/http-client.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
const home = mkdtempSync(join(tmpdir(), 'destroyed-payload-'));
const PYTHON_SRC = fileURLToPath(new URL('../../python/src', import.meta.url));
let orgId: string;
let owner: Api;
let auditor: Api;
let jwks: { keys: readonly Jwk[] };
let jwksFile: string;

/** The operations, by what happened to their payload. */
const ids: Record<'deleted' | 'garbled' | 'forged' | 'inlineDropped' | 'erased' | 'intact', string> = {} as never;
/** A second agent's chain, whose only absent payload an owner erased through the service. */
const erasedOnly: Record<'erased' | 'intact', string> = {} as never;
let storeKeys: Record<string, string>;
let agentId: string;
let erasedOnlyAgentId: string;
let start: number;

const big = (label: string) => ({ label, padding: 'x'.repeat(2000) });

async function submitChain(agent: string, names: readonly string[], payloadOf: (name: string) => Record<string, unknown>): Promise<Record<string, string>> {
  const key = newKey('k1');
  await registerAgent(owner, agent, [key]);
  const chain = new ClientChain(orgId, agent, key);
  const out: Record<string, string> = {};
  for (const name of names) {
    const { record, res } = await chain.submit(owner, { payload: payloadOf(name) });
    expect(res.status).toBe(200);
    out[name] = record.operation_id;
  }
  return out;
}

/** One agent's export, made by the service and downloaded, and written to a file for the CLIs. */
async function exportOf(agent: string, format: 'json' | 'pdf'): Promise<{ bytes: Uint8Array; file: string }> {
  const created = await auditor('POST', '/v1/exports', { format, start_time: start, end_time: Date.now() + 1000, agent_id: agent });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await exportWhenDone(auditor, created.body.export.export_id);
  const { bytes } = await downloadExport(auditor, created.body.export.export_id, format);
  const file = join(home, `${agent}.${format}`);
  writeFileSync(file, bytes);
  return { bytes, file };
}

const cliVerify = (file: string) => runCli(['verify', file, '--jwks', jwksFile], { env: { AGENT_LEDGER_HOME: home, HOME: home } });
// Debian's python3 has `cryptography` (scripts/test-python.sh); the verifier needs nothing else.
const pythonVerify = (file: string) =>
  spawnSync('/usr/bin/python3', ['-m', 'agent_ledger', 'verify', file, '--jwks', jwksFile], { env: { ...process.env, PYTHONPATH: PYTHON_SRC }, encoding: 'utf8' });

beforeAll(async () => {
  const seeded = await stack.org('org_owner', 'compliance_auditor');
  orgId = seeded.orgId;
  owner = seeded.api.org_owner!;
  auditor = seeded.api.compliance_auditor!;
  start = Date.now() - 1000;
  agentId = uniqueAgentId('destroyed');
  Object.assign(ids, await submitChain(agentId, ['deleted', 'garbled', 'forged', 'inlineDropped', 'erased', 'intact'], (name) => (name === 'inlineDropped' ? { label: name } : big(name))));
  erasedOnlyAgentId = uniqueAgentId('erased-only');
  Object.assign(erasedOnly, await submitChain(erasedOnlyAgentId, ['erased', 'intact'], big));
  storeKeys = {};
  for (const [name, id] of Object.entries(ids)) storeKeys[name] = (await owner('GET', `/v1/operations/${id}`)).body.operation.store_payload_key;
  // The insider, straight at the bucket and the table.
  const bucket = config().dataBucket;
  await s3().send(new DeleteObjectCommand({ Bucket: bucket, Key: storeKeys.deleted }));
  await s3().send(new PutObjectCommand({ Bucket: bucket, Key: storeKeys.garbled, Body: 'not json \u0000', ContentType: 'application/json' }));
  await s3().send(new PutObjectCommand({ Bucket: bucket, Key: storeKeys.forged, Body: canonicalize({ label: 'forged', padding: 'y'.repeat(2000) }), ContentType: 'application/json' }));
  await dynamo().send(new UpdateCommand({ TableName: config().tableName, Key: ledgerKeys.operation(orgId, ids.inlineDropped), UpdateExpression: 'REMOVE payload_json' }));
  // The owner, through the API.
  for (const id of [ids.erased, erasedOnly.erased]) expect((await owner('POST', `/v1/operations/${id}/erase-payload`, { reason: 'a secret leaked' })).status).toBe(200);
  jwks = (await auditor('GET', '/.well-known/service/jwks.json')).body;
  jwksFile = join(home, 'jwks.json');
  writeFileSync(jwksFile, JSON.stringify(jwks));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('a payload destroyed in storage', () => {
  it('fails the verify endpoint (signature: false); an erased or intact one passes', async () => {
    const verdicts: Record<string, unknown> = {};
    for (const [name, id] of Object.entries(ids)) verdicts[name] = (await auditor('POST', `/v1/operations/${id}/verify`)).body.checks.signature;
    expect(verdicts).toEqual({ deleted: false, garbled: false, forged: false, inlineDropped: false, erased: true, intact: true });
    const deleted = (await auditor('GET', `/v1/operations/${ids.deleted}`)).body;
    expect(deleted).not.toHaveProperty('payload');
    expect(deleted).not.toHaveProperty('payload_erased');
  });

  it('fails export verification in TypeScript, agent-ledger verify and Python, at exactly the destroyed payloads', async () => {
    const { bytes, file } = await exportOf(agentId, 'json');
    const report = verifyExportBundle(bytes, { jwks });
    const order = Object.keys(ids);
    const at = (name: string) => `operations[${order.indexOf(name)}].payload`;
    const failed = report.findings.filter((f) => f.status === 'failed');
    expect(failed.map((f) => f.where).sort()).toEqual(['deleted', 'garbled', 'forged', 'inlineDropped'].map(at).sort());
    expect(failed.find((f) => f.where === at('deleted'))!.reason).toBe(`the payload is neither in the bundle nor marked erased: its stored copy (${storeKeys.deleted}) was destroyed`);
    expect(failed.find((f) => f.where === at('garbled'))!.reason).toBe(`the payload is neither in the bundle nor marked erased: its stored copy (${storeKeys.garbled}) was destroyed`);
    expect(failed.find((f) => f.where === at('forged'))!.reason).toBe('SHA-256 of the canonical payload is not payload_hash');
    expect(report.findings).toContainEqual(expect.objectContaining({ where: at('erased'), status: 'not_covered', reason: expect.stringContaining('a secret leaked') }));
    expect(report.valid).toBe(false);

    const cli = await cliVerify(file);
    expect(cli.code, cli.stdout + cli.stderr).toBe(1);
    expect(cli.stdout).toContain('NOT verified');
    for (const name of ['deleted', 'garbled', 'forged', 'inlineDropped']) expect(cli.stdout).toContain(`${at(name)}:`);
    expect(cli.stdout).not.toContain(`${at('erased')}:`);

    const python = pythonVerify(file);
    expect(python.status, python.stdout + python.stderr).toBe(1);
    expect(python.stdout).toContain('NOT verified');
    for (const name of ['deleted', 'garbled', 'forged', 'inlineDropped']) expect(python.stdout).toContain(`${at(name)}:`);
    expect(python.stdout).not.toContain(`${at('erased')}:`);
  });

  it('fails a PDF export of the same operations in agent-ledger verify, at the destroyed payloads', async () => {
    const { file } = await exportOf(agentId, 'pdf');
    const cli = await cliVerify(file);
    expect(cli.code, cli.stdout + cli.stderr).toBe(1);
    const order = Object.keys(ids);
    for (const name of ['deleted', 'garbled', 'forged', 'inlineDropped']) expect(cli.stdout).toContain(`operations[${order.indexOf(name)}].payload:`);
  });

  it('passes an export whose only absent payload an owner erased through the service, in all three verifiers', async () => {
    const { bytes, file } = await exportOf(erasedOnlyAgentId, 'json');
    const report = verifyExportBundle(bytes, { jwks });
    expectVerified(report);
    expect(report.findings).toContainEqual(expect.objectContaining({ where: 'operations[0].payload', status: 'not_covered', reason: expect.stringContaining('a secret leaked') }));
    expect(report.checks.payload).toEqual({ passed: 1, failed: 0, not_covered: 1 });

    const cli = await cliVerify(file);
    expect(cli.code, cli.stdout + cli.stderr).toBe(0);
    expect(cli.stdout).toContain('export bundle verified');
    const python = pythonVerify(file);
    expect(python.status, python.stdout + python.stderr).toBe(0);
    expect(python.stdout).toContain('export bundle verified');
  });
});
