/**
 * An export of several multipart parts whose worker is killed (SIGKILL, in a process of its
 * own) after it saved a part: once its lease has run out, the message comes back (as SQS
 * redelivers it after the visibility timeout), the next run resumes from the saved state,
 * and the file holds every operation exactly once and verifies. Before it is done, the
 * export cannot be downloaded (VALIDATION_ERROR 409).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { verifyExportBundle, type ExportBundle } from '@agent-ledger/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExport } from '../../lambdas/store/exports.js';
import { workerList } from '../../lambdas/workers/worker-table.js';
import { startQueueWorkers } from '../../local/workers.js';
import { newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import type { Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { seedOperations } from '../support/operation-seed.js';
import { downloadExport, exportWhenDone } from '../support/export-flow.js';

const OPERATIONS = 800;
/** About 20 KB of payload each: some 16 MB of bundle, four 5 MiB parts. */
const PAYLOAD = 'x'.repeat(20_000);
const stack = useLedgerStack({ env: { LEDGER_EXPORT_PART_MB: '5' } });
let auditor: Api;
let orgId: string;
let seeded: string[];
let child: ChildProcess | undefined;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  // No in-process consumer: this file decides who runs the exports worker, and when.
  stack.queue.close();
  const org = await stack.org('org_owner', 'compliance_auditor');
  orgId = org.orgId;
  auditor = org.api.compliance_auditor;
  const agents = [0, 1].map(() => ({ agentId: uniqueAgentId('crash'), key: newKey() }));
  for (const agent of agents) await registerAgent(org.api.org_owner, agent.agentId, [agent.key]);
  const t = Date.now() - 600_000;
  const rows = await seedOperations(orgId, Array.from({ length: OPERATIONS }, (_, i) => ({ agent: agents[i % 2]!, createdAt: t + i * 10, payload: { i, pad: PAYLOAD } })));
  seeded = rows.map((row) => row.operation_id);
}, 180_000);
afterAll(() => child?.kill('SIGKILL'));

describe('a worker killed halfway', () => {
  it('is resumed by the retried message and writes every operation exactly once', async () => {
    const created = await auditor('POST', '/v1/exports', { start_time: Date.now() - 3_600_000, end_time: Date.now(), format: 'json' });
    expect(created.status).toBe(201);
    const exportId = created.body.export.export_id as string;

    const early = await auditor('GET', `/v1/exports/${exportId}/download`);
    expect([early.status, early.body.error.code]).toEqual([409, 'VALIDATION_ERROR']);
    expect(early.body.error.message).toMatch(/cannot be downloaded: it is queued/);
    expect((await auditor('GET', `/v1/exports/${exportId}`)).body.download_url).toBeUndefined();

    child = spawn(process.execPath, ['--import', 'tsx', 'test/support/export-worker-child.ts'], {
      env: { ...process.env, EXPORT_JOB: JSON.stringify({ export_id: exportId, org_id: orgId }), EXPORT_LAMBDA_SECONDS: '8' },
      stdio: 'ignore',
    });
    // Kill it as soon as it has saved a part, long before it could finish.
    let item = await readExport(orgId, exportId);
    for (const deadline = Date.now() + 90_000; !(item?.operations_done && item.operations_done > 0); item = await readExport(orgId, exportId)) {
      if (Date.now() > deadline) throw new Error(`the worker saved no part: ${JSON.stringify(item)}`);
      await sleep(50);
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    item = (await readExport(orgId, exportId))!;
    expect(item.status).toBe('running');
    expect(item.operations_done).toBeGreaterThan(0);
    expect(item.operations_done).toBeLessThan(OPERATIONS);
    const parts = (JSON.parse(item.job!) as { bundle: { upload: { etags: string[] } } }).bundle.upload.etags.length;
    expect(parts).toBeGreaterThanOrEqual(1);
    expect((await auditor('GET', `/v1/exports/${exportId}/download`)).status).toBe(409);

    // SQS delivers the message again only after its visibility timeout, which outlasts the lease.
    await sleep(Math.max(0, item.lease_until! - Date.now() + 50));
    const stop = startQueueWorkers(stack.queue, workerList);
    try {
      const done = await exportWhenDone(auditor, exportId, 120_000);
      expect(done.export.progress).toEqual({ operations_done: OPERATIONS, operations_total: OPERATIONS });
    } finally {
      stop();
    }
    const { bytes } = await downloadExport(auditor, exportId, 'json');
    const report = verifyExportBundle(bytes);
    expect(report.findings.filter((f) => f.status === 'failed')).toEqual([]);
    const bundle = JSON.parse(Buffer.from(bytes).toString('utf8')) as ExportBundle;
    expect(bundle.body.operations.map((op) => op.row.operation_id)).toEqual(seeded);
  }, 240_000);
});
