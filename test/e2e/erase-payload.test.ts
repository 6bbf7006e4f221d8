/**
 * POST /v1/operations/:operation_id/erase-payload: an owner erases a payload, inline and as a
 * data bucket object (docs/STORAGE.md), while payload_hash, the signature, the chain and the
 * receipt still verify; the operation is marked (who, when, why), the admin log records it
 * once, a second call answers the same mark, and bad input is a VALIDATION_ERROR. Exports made
 * before that held the payload are withdrawn, their files destroyed: a compliance auditor's
 * download is refused, and nothing under the organization's prefixes of the data bucket holds
 * the payload any more (read straight from the bucket, as an insider would). An export running
 * at the time: erase-running-export.test.ts. Roles and tenancy:
 * operation-access-roles-and-tenancy.test.ts and roles.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyExportBundle } from '@agent-ledger/protocol';
import { bucketObjects } from '../support/bucket-contents.js';
import { downloadExport, expectVerified, exportWhenDone } from '../support/export-flow.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import type { Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
let orgId: string;
let owner: Api;
let auditor: Api;

beforeAll(async () => {
  const seeded = await stack.org('org_owner', 'compliance_auditor');
  orgId = seeded.orgId;
  owner = seeded.api.org_owner!;
  auditor = seeded.api.compliance_auditor!;
});

async function operationWith(payload: Record<string, unknown>) {
  const agentId = uniqueAgentId();
  const key = newKey('k1');
  await registerAgent(owner, agentId, [key]);
  const chain = new ClientChain(orgId, agentId, key);
  const { record, res } = await chain.submit(owner, { payload });
  expect(res.status).toBe(200);
  return { agentId, operationId: record.operation_id, payloadHash: record.payload_hash };
}

describe('erasing a payload', () => {
  it.each([
    ['inline in the row', { secret: 'AKIA-leaked' }],
    ['an object of the data bucket', { secret: 'AKIA-leaked', padding: 'x'.repeat(4000) }],
  ])('%s: gone from GET, marked, logged once, every check still passes, idempotent', async (_where, payload) => {
    const { operationId, payloadHash } = await operationWith(payload);
    expect((await owner('GET', `/v1/operations/${operationId}`)).body.payload).toEqual(payload);

    const first = await owner('POST', `/v1/operations/${operationId}/erase-payload`, { reason: 'a secret leaked into a tool call' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ operation_id: operationId, payload_erased: { by: expect.any(String), at: expect.any(Number), reason: 'a secret leaked into a tool call' } });

    const read = (await owner('GET', `/v1/operations/${operationId}`)).body;
    expect(read).not.toHaveProperty('payload');
    expect(read.payload_erased).toEqual(first.body.payload_erased);
    expect(read.operation.payload_hash).toBe(payloadHash);

    const verified = await owner('POST', `/v1/operations/${operationId}/verify`);
    expect(verified.status).toBe(200);
    expect(JSON.stringify(verified.body)).not.toContain('AKIA-leaked');
    expect(verified.body).toMatchObject({ valid: true, checks: { signature: true, chain: true, receipt: true } });

    // Idempotent: the same mark, no second admin event.
    const again = await owner('POST', `/v1/operations/${operationId}/erase-payload`, { reason: 'another reason' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const events = (await owner('GET', '/v1/admin/events?limit=100')).body.events as { action: string; target_id: string; details: string | null }[];
    const mine = events.filter((e) => e.action === 'operation.payload_erase' && e.target_id === operationId);
    expect(mine).toHaveLength(1);
    expect(JSON.parse(mine[0]!.details!)).toMatchObject({ reason: 'a secret leaked into a tool call', payload_hash: payloadHash });
  });

  it('an export made after the erasure verifies offline against the service JWKS, the payload reported erased (not tampered)', async () => {
    const start = Date.now() - 1000;
    const { operationId, agentId } = await operationWith({ secret: 'AKIA-leaked-for-export' });
    expect((await owner('POST', `/v1/operations/${operationId}/erase-payload`, { reason: 'leaked credentials' })).status).toBe(200);
    const created = await owner('POST', '/v1/exports', { format: 'json', start_time: start, end_time: Date.now() + 1000, agent_id: agentId });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const done = await exportWhenDone(owner, created.body.export.export_id);
    const { bytes } = await downloadExport(owner, done.export.export_id, 'json');
    expect(Buffer.from(bytes).toString('utf8')).not.toContain('AKIA-leaked-for-export');
    const jwks = (await owner('GET', '/.well-known/service/jwks.json')).body;
    const report = verifyExportBundle(bytes, { jwks });
    expect(report.findings.filter((f) => f.status === 'failed')).toEqual([]);
    expectVerified(report);
    const erased = report.findings.find((f) => f.check === 'payload' && f.where === 'operations[0].payload');
    expect(erased).toMatchObject({ status: 'not_covered', reason: expect.stringContaining('payload erased by') });
    expect(erased!.reason).toContain('leaked credentials');
  });

  it('withdraws the earlier exports that held it (JSON and PDF): GET says why, a download is EXPORT_WITHDRAWN, their files are gone', async () => {
    const secret = `AKIA-in-an-earlier-export-${Date.now()}`;
    const start = Date.now() - 1000;
    const { operationId, agentId } = await operationWith({ secret, padding: 'x'.repeat(4000) });
    const exportOf = async (body: Record<string, unknown>) => {
      const created = await auditor('POST', '/v1/exports', { start_time: start, end_time: Date.now() + 60_000, agent_id: agentId, ...body });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return (await exportWhenDone(auditor, created.body.export.export_id)).export.export_id as string;
    };
    const json = await exportOf({ format: 'json' });
    const pdf = await exportOf({ format: 'pdf' });
    const withoutPayloads = await exportOf({ format: 'json', include_payloads: false });
    const otherAgent = (await operationWith({ n: 1 })).agentId;
    const unrelated = await exportOf({ format: 'json', agent_id: otherAgent });
    // Before the erasure the auditor holds the secret.
    expect(Buffer.from((await downloadExport(auditor, json, 'json')).bytes).toString('utf8')).toContain(secret);

    expect((await owner('POST', `/v1/operations/${operationId}/erase-payload`, { reason: 'a secret leaked into a tool call' })).status).toBe(200);

    for (const id of [json, pdf]) {
      const got = (await auditor('GET', `/v1/exports/${id}`)).body;
      expect(got.export.withdrawn).toEqual({ at: expect.any(Number), by: expect.any(String), operation_id: operationId, reason: 'a secret leaked into a tool call' });
      expect(got).not.toHaveProperty('download_url');
      const refused = await auditor('GET', `/v1/exports/${id}/download`);
      expect([refused.status, refused.body.error.code]).toEqual([410, 'EXPORT_WITHDRAWN']);
      expect(refused.body.error.message).toContain(`the payload of operation ${operationId}, which it held, was erased (a secret leaked into a tool call)`);
      const listed = (await auditor('GET', '/v1/exports?limit=100')).body.exports.find((e: { export_id: string }) => e.export_id === id);
      expect(listed.withdrawn.operation_id).toBe(operationId);
    }
    // Exports that never held it stay as they were.
    for (const [id, format] of [[withoutPayloads, 'json'], [unrelated, 'json']] as const) {
      expect((await auditor('GET', `/v1/exports/${id}`)).body.export).not.toHaveProperty('withdrawn');
      await downloadExport(auditor, id, format);
    }
    // The bucket itself: no file of the withdrawn exports (the PDF's bundle included), no copy of the payload.
    const objects = [...(await bucketObjects(`exports/${orgId}/`)), ...(await bucketObjects(`payloads/${orgId}/`))];
    expect(objects.filter((o) => o.key.includes(json) || o.key.includes(pdf)).map((o) => o.key)).toEqual([]);
    expect(objects.filter((o) => o.text.includes(secret)).map((o) => o.key)).toEqual([]);
    // Erasing again is still idempotent, and reaches nothing new.
    expect((await owner('POST', `/v1/operations/${operationId}/erase-payload`, { reason: 'again' })).status).toBe(200);
    expect((await auditor('GET', `/v1/exports/${json}`)).body.export.withdrawn.reason).toBe('a secret leaked into a tool call');
  });

  it('refuses a missing or empty reason and unknown members with VALIDATION_ERROR, and an unknown operation with NOT_FOUND', async () => {
    const { operationId } = await operationWith({ n: 1 });
    for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 'r', extra: 1 }, { reason: 'x'.repeat(501) }, { reason: 7 }]) {
      const res = await owner('POST', `/v1/operations/${operationId}/erase-payload`, body);
      expect(`${JSON.stringify(body).slice(0, 40)} ${res.status} ${res.body.error?.code}`).toBe(`${JSON.stringify(body).slice(0, 40)} 400 VALIDATION_ERROR`);
    }
    expect((await owner('GET', `/v1/operations/${operationId}`)).body.payload).toEqual({ n: 1 });
    const unknown = await owner('POST', '/v1/operations/01938c2e-7a10-7000-8000-000000000000/erase-payload', { reason: 'r' });
    expect(unknown.status).toBe(404);
  });
});
