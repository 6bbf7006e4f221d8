/**
 * Exports end to end (docs/API.md §4.8, docs/EXPORT.md): JSON and PDF exports created over
 * HTTP, written by the exports worker on the in-process queue, downloaded through the
 * presigned URL (s3rver serves it), and checked with verifyExportBundle alone, the PDF's
 * through the bundle it embeds. One flipped byte of a signature, a payload, a proof or the
 * manifest makes the verifier fail and name the place. Then the API's rules: range checks,
 * roles, tenancy, download before done.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyExportBundle, verifyPdfSignature, type ExportBundle } from '@agent-ledger/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { pdfAttachments } from '../../client/src/verify/pdf-attachment.js';
import { newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import type { Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { seedOperations, type SeedAgent } from '../support/operation-seed.js';
import { downloadExport, expectVerified, exportWhenDone } from '../support/export-flow.js';

const EPOCH_MS = 1_000;
const stack = useLedgerStack({ env: { LEDGER_EPOCH_MS: String(EPOCH_MS), LEDGER_EPOCH_GRACE_MS: '0', LEDGER_RATE_LIMIT_RPS: '100000' } });
let orgId: string;
let auditor: Api;
let engineer: Api;
let outsider: Api;
const start = Date.now() - 120_000;
const end = Date.now() + 10 * 60_000;
let agents: SeedAgent[];

beforeAll(async () => {
  const org = await stack.org('org_owner', 'compliance_auditor', 'integration_engineer');
  orgId = org.orgId;
  auditor = org.api.compliance_auditor;
  engineer = org.api.integration_engineer;
  outsider = (await stack.org('org_owner')).api.org_owner;
  agents = [
    { agentId: uniqueAgentId('alpha'), key: newKey() },
    { agentId: uniqueAgentId('beta'), key: newKey() },
  ];
  for (const agent of agents) await registerAgent(org.api.org_owner, agent.agentId, [agent.key]);
  const targets = ['docs/設計.md', 'notes/🚀 launch.md', 'שלום/עולם.txt', 'tricky\u202Etxt.exe', 'plain/file.ts', 'más/ñandú.txt'];
  // Two sealed windows, then one left unsealed: proofs for the first six operations only.
  await seedOperations(
    orgId,
    // The report's "Verb and target" reads action.target (the command or file acted on), not the subject (the workspace).
    targets.map((path, i) => ({
      agent: agents[i % 2]!,
      createdAt: start + 1_000 + Math.floor(i / 3) * EPOCH_MS,
      subject: { workspace: '/home/dev/repo' },
      action: { verb: 'edit', target: path },
      payload: { i, text: `payload ${i} 🙂` },
    })),
  );
  await stack.schedule.runNow();
  await seedOperations(orgId, [0, 1].map((i) => ({ agent: agents[i]!, createdAt: Date.now() - 10, operationType: 'deploy.run', subject: { target: `svc-${i}` } })));
});

async function create(api: Api, body: Record<string, unknown>) {
  return api('POST', '/v1/exports', { start_time: start, end_time: end, ...body });
}

describe('a JSON export', () => {
  let bytes: Uint8Array;
  let bundle: ExportBundle;

  beforeAll(async () => {
    const created = await create(auditor, { format: 'json' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.export).toMatchObject({ status: 'queued', org_id: orgId, store_export_key: null, completed_at: null });
    const done = await exportWhenDone(auditor, created.body.export.export_id);
    expect(done.download_url).toBe(`/v1/exports/${done.export.export_id}/download`);
    expect(done.export.progress).toEqual({ operations_done: 8, operations_total: 8 });
    ({ bytes } = await downloadExport(auditor, done.export.export_id, 'json'));
    bundle = JSON.parse(Buffer.from(bytes).toString('utf8')) as ExportBundle;
  });

  it('verifies offline, with every operation, proofs for the sealed ones and the epochs they point to', () => {
    const report = verifyExportBundle(bytes);
    expect(report.findings.filter((f) => f.status === 'failed')).toEqual([]);
    expectVerified(report);
    expect(report.counts).toMatchObject({ operations: 8, agents: 2, agent_keys: 2 });
    // The two sealed windows, and the recent one once the stack's own timer seals it too.
    expect(report.counts.epochs).toBeGreaterThanOrEqual(2);
    expect(bundle.body.summary.proofs).toBeGreaterThanOrEqual(6);
    expect(bundle.body.summary.payloads).toBe(8);
    expect(bundle.body.export).toMatchObject({ org_id: orgId, format: 'json', include_payloads: true, query: { start_time: start, end_time: end, agent_id: null, operation_type: null } });
  });

  const withPayload = (b: ExportBundle) => b.body.operations.findIndex((op) => (op.payload as { i?: number } | undefined)?.i === 1);
  it.each([
    ['a record signature', (b: ExportBundle) => [b.body.operations[2]!.record.signature, 'operations[2].signature']],
    ['a payload', (b: ExportBundle) => ['payload 1 ', `operations[${withPayload(b)}].payload`]],
    ['a proof', (b: ExportBundle) => [b.body.operations[0]!.proof!.audit_path[0]!, 'operations[0].inclusion']],
    ['the manifest signature', (b: ExportBundle) => [b.manifest.signature, 'manifest.signature']],
  ])('fails and names the place when one byte of %s changes', (_, pick) => {
    const [text, where] = pick(bundle) as [string, string];
    const tampered = flipOneByte(bytes, text);
    const report = verifyExportBundle(tampered);
    expect(report.valid).toBe(false);
    expect(report.findings.filter((f) => f.status === 'failed').map((f) => f.where)).toContain(where);
  });
});

describe('a PDF export', () => {
  it('embeds a bundle that verifies, of the same operations', async () => {
    const created = await create(auditor, { format: 'pdf', include_payloads: false });
    expect(created.status).toBe(201);
    const done = await exportWhenDone(auditor, created.body.export.export_id);
    const { bytes, disposition } = await downloadExport(auditor, done.export.export_id, 'pdf');
    expect(disposition).toBe(`attachment; filename=export-${done.export.export_id}.pdf`);
    expect(Buffer.from(bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const attachments = await pdfAttachments(bytes);
    expect(attachments.map((a) => a.name)).toEqual([`export-${done.export.export_id}.json`]);
    const report = verifyExportBundle(attachments[0]!.bytes);
    expectVerified(report);
    expect(report.counts.operations).toBe(8);
    expect(report.export).toMatchObject({ format: 'pdf', include_payloads: false });
    // docs/EXPORT.md "The PDF's pages": the file is signed by the service key of the deployment's JWKS.
    const jwks = (await (await fetch(`${stack.baseUrl}/.well-known/service/jwks.json`)).json()) as { keys: [] };
    expect(verifyPdfSignature(bytes, jwks).status).toBe('valid');
    await rendersItsText(bytes, done.export.export_id);
  });
});

describe('filters', () => {
  it('exports one agent of one type only', async () => {
    const created = await create(auditor, { format: 'json', agent_id: agents[1]!.agentId, operation_type: 'deploy.run' });
    const done = await exportWhenDone(auditor, created.body.export.export_id);
    const { bytes } = await downloadExport(auditor, done.export.export_id, 'json');
    const report = verifyExportBundle(bytes);
    expectVerified(report);
    expect(report.counts.operations).toBe(1);
    expect(JSON.parse(created.body.export.query_params)).toMatchObject({ agent_id: agents[1]!.agentId, operation_type: 'deploy.run', format: 'json', include_payloads: true });
  });
});

describe('the rules of POST /v1/exports', () => {
  it.each([
    ['start in the future', { start_time: Date.now() + 86_400_000, end_time: Date.now() + 2 * 86_400_000 }],
    ['start after end', { start_time: start, end_time: start - 1 }],
    ['start equal to end', { start_time: start, end_time: start }],
    ['more than 366 days', { start_time: 0, end_time: 366 * 86_400_000 + 1 }],
    ['a fractional time', { start_time: start + 0.5 }],
    ['a time as a string', { start_time: String(start) }],
    ['a negative time', { start_time: -1 }],
    ['an unknown format', { format: 'csv' }],
    ['no format', { format: undefined }],
    ['an unknown member', { colour: 'blue' }],
    ['a malformed agent id', { agent_id: 'a#b' }],
    ['an operation type that cannot match', { operation_type: 'no dots' }],
    ['include_payloads not a boolean', { include_payloads: 'no' }],
  ])('%s: VALIDATION_ERROR 400', async (_, body) => {
    const res = await create(auditor, { format: 'json', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('records export.create in the admin log', async () => {
    const created = await create(auditor, { format: 'json' });
    const events = await auditor('GET', '/v1/admin/events?limit=100');
    expect(events.body.events.some((e: { action: string; target_id: string }) => e.action === 'export.create' && e.target_id === created.body.export.export_id)).toBe(true);
    await exportWhenDone(auditor, created.body.export.export_id);
  });

  it('is refused to roles without exports (FORBIDDEN)', async () => {
    expect((await create(engineer, { format: 'json' })).status).toBe(403);
    expect((await engineer('GET', '/v1/exports')).status).toBe(403);
  });
});

describe('reading exports', () => {
  it('lists the newest first, pages with a cursor, and shows only the organization\'s own', async () => {
    const all = await auditor('GET', '/v1/exports?limit=100');
    expect(all.status).toBe(200);
    const ids = all.body.exports.map((e: { export_id: string }) => e.export_id);
    expect(ids.length).toBeGreaterThanOrEqual(4);
    expect([...ids].sort().reverse()).toEqual(ids);
    const first = await auditor('GET', '/v1/exports?limit=2');
    const second = await auditor('GET', `/v1/exports?limit=2&cursor=${first.body.cursor}`);
    expect([...first.body.exports, ...second.body.exports].map((e: { export_id: string }) => e.export_id)).toEqual(ids.slice(0, 4));
    expect((await outsider('GET', '/v1/exports')).body.exports).toEqual([]);
    expect((await auditor('GET', '/v1/exports?cursor=not-a-cursor')).status).toBe(400);
  });

  it("answers NOT_FOUND for another organization's export and for an unknown id, VALIDATION_ERROR for a malformed one", async () => {
    const mine = (await auditor('GET', '/v1/exports?limit=1')).body.exports[0].export_id as string;
    for (const path of [`/v1/exports/${mine}`, `/v1/exports/${mine}/download`]) {
      const res = await outsider('GET', path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const unknown = '01900000-0000-7000-8000-000000000000';
    expect((await auditor('GET', `/v1/exports/${unknown}`)).status).toBe(404);
    expect((await auditor('GET', `/v1/exports/${unknown}/download`)).status).toBe(404);
    expect((await auditor('GET', '/v1/exports/not-an-id')).body.error.code).toBe('VALIDATION_ERROR');
  });
});

/**
 * The report as poppler reads it: every page rasterizes (pdftoppm), and the text layer holds
 * the CJK target, the visible stand-in of the right-to-left override and the page numbers.
 * EXPORT_PDF_KEEP=<dir> keeps the PDF and the PNG of the operations page to look at.
 */
async function rendersItsText(pdf: Uint8Array, exportId: string): Promise<void> {
  const dir = process.env.EXPORT_PDF_KEEP ?? mkdtempSync(join(tmpdir(), 'export-pdf-'));
  try {
    const file = join(dir, `export-${exportId}.pdf`);
    writeFileSync(file, pdf);
    execFileSync('pdftoppm', ['-r', '110', '-f', '2', '-l', '2', '-png', file, join(dir, 'page')]);
    const png = readdirSync(dir).find((name) => name.startsWith('page') && name.endsWith('.png'));
    expect(png).toBeDefined();
    expect(statSync(join(dir, png!)).size).toBeGreaterThan(10_000);
    const text = execFileSync('pdftotext', ['-layout', file, '-']).toString('utf8');
    for (const expected of ['edit docs/', '設計.md', '🚀', '<U+202E>', 'How to verify this export', 'What this export proves', 'page 2 of', `export-${exportId}.json`]) expect(text).toContain(expected);
    expect(text).not.toContain('/home/dev/repo');
  } finally {
    if (!process.env.EXPORT_PDF_KEEP) rmSync(dir, { recursive: true, force: true });
  }
}

/** The file with one character of `text` (found in it) replaced by another base64url character. */
function flipOneByte(file: Uint8Array, text: string): Uint8Array {
  const at = Buffer.from(file).indexOf(Buffer.from(text, 'utf8'));
  if (at < 0) throw new Error(`${text.slice(0, 20)} is not in the file`);
  const copy = Uint8Array.from(file);
  const offset = at + Math.floor(text.length / 2);
  copy[offset] = copy[offset] === 0x41 ? 0x42 : 0x41; // 'A' <-> 'B': still base64url, still canonical JSON
  return copy;
}
