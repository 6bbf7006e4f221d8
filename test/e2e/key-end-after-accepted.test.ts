// A key's end lies after every record the service accepted with it (docs/PROTOCOL.md "Key
// events"): a retirement, a key revocation, an agent revocation or an agent deletion takes
// its time when the request starts, then waits its turn at the key history and commits. The
// key keeps signing meanwhile. Here records of the key are accepted exactly in that gap (just
// before the change's transaction goes out), and then every one of them must still lie inside
// its key's window: created_at before the key event's time and before retired_at, and an export
// of them passes the verifier's key_window check.
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { foldKeyHistory, keyUseProblem, verifyExportBundle } from '@agent-ledger/protocol';
import { listKeyEvents } from '../../lambdas/store/key-log.js';
import { beforeRequest } from '../support/before-request.js';
import { downloadExport, expectVerified, exportWhenDone } from '../support/export-flow.js';
import type { Api, Loose } from '../support/http-client.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
let orgId: string;
let owner: Api;

beforeAll(async () => {
  const seeded = await stack.org('org_owner');
  orgId = seeded.orgId;
  owner = seeded.api.org_owner;
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Records accepted between the change's start and its commit. */
const IN_THE_GAP = 3;

interface Change {
  name: string;
  /** The key event the change appends for k1. */
  event: 'retire' | 'revoke' | 'delete';
  request: (agentId: string) => Promise<Loose>;
  /** k1's retired_at as the change answers it (null: the answer names no key). */
  retiredAt: (body: Loose) => number | null;
}

const CHANGES: Change[] = [
  {
    name: 'key retirement',
    event: 'retire',
    request: (agentId) => owner('POST', `/v1/agents/${agentId}/keys/k1/retire`, { reason: 'rotation' }),
    retiredAt: (body) => body.key.retired_at,
  },
  {
    name: 'key revocation',
    event: 'revoke',
    request: (agentId) => owner('POST', `/v1/agents/${agentId}/revoke`, { kid: 'k1', reason: 'leaked' }),
    retiredAt: (body) => body.key.retired_at,
  },
  {
    name: 'agent revocation',
    event: 'revoke',
    request: (agentId) => owner('POST', `/v1/agents/${agentId}/revoke`, { reason: 'decommissioned' }),
    retiredAt: (body) => (body.keys as Loose[]).find((key) => key.kid === 'k1').retired_at,
  },
  {
    name: 'agent deletion',
    event: 'delete',
    request: (agentId) => owner('DELETE', `/v1/agents/${agentId}`),
    retiredAt: () => null,
  },
];

describe('records accepted while a key change waits to commit', () => {
  it.each(CHANGES)('$name: every accepted record lies inside its key window, and the export verifies', async (change) => {
    const start = Date.now() - 1000;
    const agentId = uniqueAgentId('key-end');
    const key = newKey('k1');
    await registerAgent(owner, agentId, [key]);
    const chain = new ClientChain(orgId, agentId, key);
    expect((await chain.submit(owner)).res.status).toBe(200);

    // Just before the change's transaction is sent (its time already taken), the agent keeps
    // submitting with k1, and the service accepts.
    const changeCommit = (c: Loose) =>
      c instanceof TransactWriteCommand && JSON.stringify(c.input).includes(`"event":"${change.event}"`) && JSON.stringify(c.input).includes(`"agent_id":"${agentId}"`);
    const moment = beforeRequest(changeCommit, async () => {
      for (let i = 0; i < IN_THE_GAP; i++) {
        const { res } = await chain.submit(owner);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
    });
    const res = await change.request(agentId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(moment.ran()).toBe(true);
    vi.restoreAllMocks();

    const ops = (await owner('POST', '/v1/audit/query', { agent_id: agentId })).body.operations as Loose[];
    expect(ops).toHaveLength(1 + IN_THE_GAP);
    const events = await listKeyEvents(orgId);
    const end = events.find((e) => e.agent_id === agentId && e.kid === 'k1' && e.event === change.event)!;
    const latest = Math.max(...ops.map((op) => op.created_at as number));
    // The key's end as the key history records it, and as the key's retired_at says.
    expect.soft(latest, `key event time ${end.time}`).toBeLessThan(end.time);
    const retiredAt = change.retiredAt(res.body);
    if (retiredAt !== null) expect.soft(latest, `retired_at ${retiredAt}`).toBeLessThan(retiredAt);
    // The verifier's key_window check itself (protocol keys/history.ts), on the stored history.
    const { history } = foldKeyHistory(events);
    const outside = ops.map((op) => keyUseProblem(history, agentId, 'k1', key.publicKey, op.created_at)).filter((problem) => problem !== null);
    expect.soft(outside).toEqual([]);

    // And on an export of them, offline, as an auditor would.
    const created = await owner('POST', '/v1/exports', { format: 'json', start_time: start, end_time: Date.now() + 1000, agent_id: agentId });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const done = await exportWhenDone(owner, created.body.export.export_id);
    const { bytes } = await downloadExport(owner, done.export.export_id, 'json');
    const report = verifyExportBundle(bytes, { jwks: (await owner('GET', '/.well-known/service/jwks.json')).body });
    expect.soft(report.checks.key_window).toEqual({ passed: 1 + IN_THE_GAP, failed: 0, not_covered: 0 });
    expectVerified(report);
  });
});
