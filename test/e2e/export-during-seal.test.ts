// An export is one consistent picture even when the sealer runs while it is being written
// (docs/EXPORT.md "Writing in pieces", docs/CHECKPOINTS.md "In an export"): an epoch sealed
// after the export's picture of the log was taken is neither in its log nor behind its
// proofs, and an epoch in its log has its operations' proofs. Here the sealer is made to run
// at the worst moments: right after the export read the log's head, and right before it
// reads the operations.
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { verifyExportBundle } from '@agent-ledger/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { beforeRequest } from '../support/before-request.js';
import { newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import type { Api, Loose } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { seedOperations, type SeedAgent } from '../support/operation-seed.js';
import { downloadExport, expectVerified, exportWhenDone } from '../support/export-flow.js';

// Hour-long windows: the schedule never runs by itself during the test; the test runs the sealer.
const HOUR = 3_600_000;
const stack = useLedgerStack({ env: { LEDGER_EPOCH_MS: String(HOUR), LEDGER_EPOCH_GRACE_MS: '0', LEDGER_RATE_LIMIT_RPS: '100000' } });
afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs the sealer once, just before the first request of the exports worker that `matches`. */
function sealBefore(matches: (command: Loose) => boolean) {
  beforeRequest(matches, () => stack.schedule.runNow());
}

const logHeadRead = (command: Loose) => command instanceof GetCommand && String(command.input.Key?.pk).endsWith('#EPOCHLOG');
/** The exports worker's page read of the organization's operations in time order (store/operation-index.ts OperationScan; counts have no Limit). */
const operationsRead = (command: Loose) =>
  command instanceof QueryCommand && (command.input.IndexName === 'gsi2' || command.input.IndexName === 'ops_by_time') && command.input.Limit !== undefined && command.input.Select !== 'COUNT';

/**
 * Operations of a new organization (its sealer has sealed nothing yet) in a closed window two
 * hours back; an unfiltered export of that window, with the sealer run at `moment`.
 */
async function exportWhileSealing(moment: (command: Loose) => boolean) {
  const { orgId, api } = await stack.org('org_owner', 'compliance_auditor');
  const agent: SeedAgent = { agentId: uniqueAgentId('sealing'), key: newKey() };
  await registerAgent(api.org_owner, agent.agentId, [agent.key]);
  const windowStart = Math.floor((Date.now() - 2 * HOUR) / HOUR) * HOUR;
  await seedOperations(orgId, [0, 1, 2].map((i) => ({ agent, createdAt: windowStart + 1_000 + i })));
  sealBefore(moment);
  const auditor: Api = api.compliance_auditor;
  const created = await auditor('POST', '/v1/exports', { format: 'json', start_time: windowStart, end_time: windowStart + HOUR });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const done = await exportWhenDone(auditor, created.body.export.export_id);
  const { bytes } = await downloadExport(auditor, done.export.export_id, 'json');
  return verifyExportBundle(bytes);
}

describe('the sealer runs while an export is written', () => {
  it('before the export took its picture of the log: the operations carry their proofs into the epoch it holds', async () => {
    const report = await exportWhileSealing(logHeadRead);
    expectVerified(report);
    expect(report.counts).toMatchObject({ operations: 3, epochs: 1 });
  });

  it('after the picture, before the operations are read: the new epoch is left out, and its operations are unsealed in the export', async () => {
    const report = await exportWhileSealing(operationsRead);
    expectVerified(report);
    expect(report.counts).toMatchObject({ operations: 3, epochs: 0 });
  });
});
