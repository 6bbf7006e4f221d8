/**
 * An erasure that reaches an export while it runs (docs/API.md §4.5 erase-payload, §2.10): the
 * export has already uploaded a part holding the payload when the owner erases it. The export
 * then cannot finish with it: its next run destroys what it wrote and starts over, and the file
 * it ends with marks the payload erased and holds none of it. This file drives the exports
 * worker's runs itself (no in-process consumer), so the erasure lands between two of them.
 */
import { verifyExportBundle } from '@agent-ledger/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { runExport, type ExportRunSettings } from '../../lambdas/domain/exports/run-export.js';
import type { Queue } from '../../lambdas/domain/ports.js';
import { signer } from '../../lambdas/runtime/signer.js';
import { readExport } from '../../lambdas/store/exports.js';
import { bucketObjects } from '../support/bucket-contents.js';
import { downloadExport, exportWhenDone } from '../support/export-flow.js';
import type { Api } from '../support/http-client.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
let orgId: string;
let owner: Api;
let auditor: Api;
const SECRET = 'AKIA-leaked-while-exporting';

/** The queue the runs re-queue themselves on: only counted, this file runs them. */
const requeued: unknown[] = [];
const queue = { send: async (_name: string, message: { body: unknown }) => (requeued.push(message.body), 'id') } as unknown as Queue;
const settings = (deadline: number): ExportRunSettings => ({ deadline, leaseUntil: Date.now() + 60_000, partBytes: 1, pageSize: 1 });

beforeAll(async () => {
  stack.queue.close();
  const seeded = await stack.org('org_owner', 'compliance_auditor');
  orgId = seeded.orgId;
  owner = seeded.api.org_owner!;
  auditor = seeded.api.compliance_auditor!;
});

describe('an export running when a payload it holds is erased', () => {
  it('destroys what it wrote, starts over, and ends with the payload marked erased', async () => {
    const agentId = uniqueAgentId('running');
    const key = newKey('k1');
    await registerAgent(owner, agentId, [key]);
    const chain = new ClientChain(orgId, agentId, key);
    const start = Date.now() - 1000;
    const first = await chain.submit(owner, { payload: { secret: SECRET, padding: 'x'.repeat(3000) } });
    await chain.submit(owner, { payload: { step: 2 } });
    const created = await auditor('POST', '/v1/exports', { format: 'json', start_time: start, end_time: Date.now() + 1000, agent_id: agentId });
    expect(created.status).toBe(201);
    const exportId = created.body.export.export_id as string;
    const message = { export_id: exportId, org_id: orgId };

    // One page of one operation, uploaded as a part, then the run's time is up.
    expect(await runExport({ signer: signer(), queue }, message, settings(0))).toBe('continued');
    const running = (await readExport(orgId, exportId))!;
    expect([running.status, running.operations_done]).toEqual(['running', 1]);

    expect((await owner('POST', `/v1/operations/${first.record.operation_id}/erase-payload`, { reason: 'leaked credentials' })).status).toBe(200);
    expect((await readExport(orgId, exportId))!.restart_for_erasure).toEqual(expect.any(Number));

    // The run that would finish starts the export over instead; the next one writes it anew.
    expect(await runExport({ signer: signer(), queue }, message, settings(Date.now() + 60_000))).toBe('continued');
    const restarted = (await readExport(orgId, exportId))!;
    expect([restarted.status, restarted.operations_done, restarted.job, restarted.restart_for_erasure]).toEqual(['running', 0, undefined, undefined]);
    expect(await runExport({ signer: signer(), queue }, message, settings(Date.now() + 60_000))).toBe('done');
    expect(requeued).toHaveLength(2);

    const done = await exportWhenDone(auditor, exportId);
    expect(done.export).not.toHaveProperty('withdrawn');
    const { bytes } = await downloadExport(auditor, exportId, 'json');
    expect(Buffer.from(bytes).toString('utf8')).not.toContain(SECRET);
    const jwks = (await auditor('GET', '/.well-known/service/jwks.json')).body;
    const report = verifyExportBundle(bytes, { jwks });
    expect(report.findings.filter((f) => f.status === 'failed')).toEqual([]);
    expect(report.findings).toContainEqual(expect.objectContaining({ where: 'operations[0].payload', status: 'not_covered', reason: expect.stringContaining('leaked credentials') }));
    // What the first pass uploaded is gone: no object of the organization holds the payload.
    const objects = await bucketObjects(`exports/${orgId}/`);
    expect(objects.map((o) => o.key)).toEqual([`exports/${orgId}/${exportId}.json`]);
    expect((await bucketObjects(`payloads/${orgId}/`)).concat(objects).filter((o) => o.text.includes(SECRET)).map((o) => o.key)).toEqual([]);
  });
});
