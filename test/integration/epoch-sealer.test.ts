/**
 * The epoch sealer against DynamoDB Local and s3rver (docs/PROTOCOL.md, Merkle epochs;
 * docs/STORAGE.md): windows sealed once with the RFC 9162 root over their members in leaf
 * order, without a write to any operation row; the fence raised before a window is read; re-runs
 * that change nothing; crashes at each step that a re-run finishes into the same epochs; and
 * submissions committing while sealers run, a stalled one among them, with every operation
 * in exactly one epoch, the one of its own window.
 *
 * Fixture rows are written in the ledger's layout with chosen created_at values (E = 1 s
 * windows of a fixed past day), so the sealer is driven by `now`; the concurrency tests run
 * real submissions over HTTP on the real clock with 300 ms windows.
 */
import { randomUUID } from 'node:crypto';
import { merkleRootB64u } from '@agent-ledger/protocol';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { epochIdFor } from '../../lambdas/domain/epochs/epoch-id.js';
import { leafOrder, type MemberCandidate } from '../../lambdas/domain/epochs/epoch.js';
import { runSealer, type SealerRunOptions } from '../../lambdas/domain/epochs/run-sealer.js';
import { merkleEvidence } from '../../lambdas/domain/epochs/inclusion.js';
import { sealableEnd, windowStart } from '../../lambdas/domain/epochs/window.js';
import { readAgent } from '../../lambdas/store/agents.js';
import { readOperation } from '../../lambdas/store/operations.js';
import { sealedUntil } from '../../lambdas/store/sealer-state.js';
import { epochsOf, FIXTURE_AGENT, fixtureOp, leafIdsOf, rawOperationRow, writeOperationRows } from '../support/epoch-fixtures.js';
import type { Api, Loose } from '../support/http-client.js';
import { recordQueue } from '../support/ledger-inspect.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { beforeRequest } from '../support/before-request.js';
import type * as EpochStore from '../../lambdas/store/epochs.js';
import type * as SealerState from '../../lambdas/store/sealer-state.js';
import { signer } from '../../lambdas/runtime/signer.js';

/** Where the next simulated crash happens (vi.mock factories below read it). */
const crash = vi.hoisted(() => ({ at: undefined as 'before-commit' | 'before-progress' | undefined }));

vi.mock('../../lambdas/store/epochs.js', async (importOriginal) => {
  const real = await importOriginal<typeof EpochStore>();
  return {
    ...real,
    createEpochItem: async (item: Parameters<typeof real.createEpochItem>[0]) => {
      if (crash.at === 'before-commit') {
        crash.at = undefined;
        throw new Error('simulated crash after the leaf list, before the epoch item');
      }
      return real.createEpochItem(item);
    },
  };
});

vi.mock('../../lambdas/store/sealer-state.js', async (importOriginal) => {
  const real = await importOriginal<typeof SealerState>();
  return {
    ...real,
    recordSealedUntil: async (...args: Parameters<typeof real.recordSealedUntil>) => {
      if (crash.at === 'before-progress') {
        crash.at = undefined;
        throw new Error('simulated crash after the epochs, before recording the progress');
      }
      return real.recordSealedUntil(...args);
    },
  };
});

const E = 1_000;
const GRACE = 100;
/** A fixed, aligned past instant: windows T, T+E, ... */
const T = 1_700_000_000_000;

const stack = useLedgerStack({ env: { LEDGER_EPOCH_MS: '3600000', LEDGER_RATE_LIMIT_RPS: '1000000' } });
let admin: Api;
let orgForHttp: string;
beforeAll(async () => {
  // The stack's own timer is kept out of the way (one tick per hour); tests call the sealer.
  ({ orgId: orgForHttp, api: { org_owner: admin } } = await stack.org('org_owner'));
});
afterEach(() => {
  vi.restoreAllMocks();
});

function sealer(now: number, overrides: Partial<SealerRunOptions> = {}) {
  return runSealer({
    now,
    epochMs: E,
    graceMs: GRACE,
    settleMs: 0,
    deadline: Date.now() + 60_000,
    leaseUntil: Date.now() + 120_000,
    holder: randomUUID(),
    tsa: undefined,
    signer: signer(),
    ...overrides,
  });
}

/** Everything the sealer decides for an organization, to compare before and after a run. */
async function snapshot(orgId: string, ops: readonly MemberCandidate[]) {
  const epochs = await epochsOf(orgId);
  const rows = await Promise.all(ops.map((op) => rawOperationRow(orgId, op.operation_id)));
  return { epochs, rows };
}

/** Every operation in exactly one epoch, the one of its created_at window (`epochMs`), at its place in the leaf list. */
async function expectExactlyOnce(orgId: string, ops: readonly MemberCandidate[], epochMs = E) {
  const epochs = await epochsOf(orgId);
  const lists = await Promise.all(epochs.map(leafIdsOf));
  const all = lists.flat();
  expect(new Set(all).size).toBe(all.length); // no operation in two epochs
  expect([...all].sort()).toEqual(ops.map((op) => op.operation_id).sort());
  expect(epochs.reduce((sum, epoch) => sum + epoch.leaf_count, 0)).toBe(ops.length);
  const byId = new Map(ops.map((op) => [op.operation_id, op]));
  for (const [i, epoch] of epochs.entries()) {
    for (const id of lists[i]!) expect(windowStart(byId.get(id)!.created_at, epochMs)).toBe(epoch.start_time);
  }
  return { epochs, lists };
}

describe('sealing', () => {
  it('seals each closed window into one epoch: RFC 9162 root, leaf order, leaf list, one epoch.created event; rows untouched', async () => {
    const org = randomUUID();
    const first = [fixtureOp(T + 100), fixtureOp(T + 100), fixtureOp(T + 900)];
    const second = [fixtureOp(T + E + 500)];
    const open = fixtureOp(T + 2 * E + 50);
    await writeOperationRows(org, [...first, ...second, open]);
    const rowsBefore = await snapshot(org, [...first, ...second, open]);
    const queueLog = recordQueue(stack.queue);

    const report = await sealer(T + 2 * E + GRACE);
    expect(report.errors).toEqual([]);

    const epochs = await epochsOf(org);
    expect(epochs.map((e) => [e.start_time, e.end_time, e.leaf_count])).toEqual([
      [T, T + E, 3],
      [T + E, T + 2 * E, 1],
    ]);
    const ordered = [...first].sort(leafOrder);
    const [epoch] = epochs;
    expect(epoch).toMatchObject({
      epoch_id: epochIdFor(org, T),
      org_id: org,
      root_hash: merkleRootB64u(ordered.map((op) => op.chain_hash)),
      anchor_wanted: false,
    });
    expect(epoch!.store_epoch_key).toBe(`epochs/${org}/${T}-${epoch!.epoch_id}-${epoch!.root_hash}.json`);
    expect(await leafIdsOf(epoch!)).toEqual(ordered.map((op) => op.operation_id));
    await expectExactlyOnce(org, [...first, ...second]);
    // Read-only: not one operation row changed.
    expect((await snapshot(org, [...first, ...second, open])).rows).toEqual(rowsBefore.rows);
    expect(await sealedUntil(org)).toBe(sealableEnd(T + 2 * E + GRACE, E, GRACE));

    // epoch.created leaves through the outbox, once per epoch, its event_id the epoch_id.
    await stack.stream.drain();
    const events = queueLog.events().filter((entry) => entry.body.org_id === org).map((entry) => entry.body);
    queueLog.restore();
    expect(events.sort((a, b) => Number(a.data.start_time) - Number(b.data.start_time))).toEqual(
      epochs.map((e) => ({
        event: 'epoch.created',
        event_id: e.epoch_id,
        org_id: org,
        timestamp: e.created_at,
        data: { epoch_id: e.epoch_id, start_time: e.start_time, end_time: e.end_time, root_hash: e.root_hash, leaf_count: e.leaf_count },
      })),
    );
  });

  it('fences the organization’s active agents before it reads a window, and changes nothing when run again', async () => {
    const org = randomUUID();
    const ops = [fixtureOp(T + 10 * E + 1), fixtureOp(T + 11 * E + 2)];
    await writeOperationRows(org, ops);
    const now = T + 12 * E + GRACE;
    await sealer(now);
    expect((await readAgent(org, FIXTURE_AGENT))?.sealed_until).toBe(sealableEnd(now, E, GRACE));
    const before = await snapshot(org, ops);

    const report = await sealer(now);
    expect(report).toMatchObject({ errors: [], epochs_created: 0 });
    expect(await snapshot(org, ops)).toEqual(before);
  });

  it('resumes where it stopped: windows of an organization idle for a while are sealed when it is active again, each once', async () => {
    const org = randomUUID();
    await writeOperationRows(org, [fixtureOp(T + 20 * E + 10)]);
    await sealer(T + 21 * E + GRACE);
    // Windows 21..24 pass without a run; then there are operations in two of them.
    const later = [fixtureOp(T + 22 * E + 5), fixtureOp(T + 24 * E + 7)];
    await writeOperationRows(org, later);
    await sealer(T + 25 * E + GRACE);
    expect((await epochsOf(org)).map((e) => e.start_time)).toEqual([T + 20 * E, T + 22 * E, T + 24 * E]);
  });
});

describe('crash safety', () => {
  it('a crash after the leaf list, before the commit: the re-run makes the same epoch', async () => {
    const org = randomUUID();
    const ops = [fixtureOp(T + 50 * E + 1), fixtureOp(T + 50 * E + 2)];
    await writeOperationRows(org, ops);
    crash.at = 'before-commit';
    const crashed = await sealer(T + 51 * E + GRACE);
    expect(crashed.errors).toEqual([expect.stringContaining('simulated crash after the leaf list')]);
    expect(await epochsOf(org)).toEqual([]);
    expect(await sealedUntil(org)).toBeUndefined();

    await sealer(T + 51 * E + GRACE);
    const [epoch, ...rest] = await epochsOf(org);
    expect(rest).toEqual([]);
    expect(epoch).toMatchObject({ epoch_id: epochIdFor(org, T + 50 * E), leaf_count: 2 });
    await expectExactlyOnce(org, ops);
  });

  it('a crash after the epochs, before the progress is recorded: the re-run keeps them and seals the rest once', async () => {
    const org = randomUUID();
    const ops = [fixtureOp(T + 60 * E + 1), fixtureOp(T + 61 * E + 2)];
    await writeOperationRows(org, ops);
    crash.at = 'before-progress';
    const crashed = await sealer(T + 62 * E + GRACE);
    expect(crashed.errors[0]).toContain('simulated crash after the epochs');
    const committed = await epochsOf(org);
    expect(committed).toHaveLength(2);

    const more = fixtureOp(T + 62 * E + 3);
    await writeOperationRows(org, [more]);
    expect(await sealer(T + 63 * E + GRACE)).toMatchObject({ errors: [], epochs_created: 1 });
    const epochs = await epochsOf(org);
    expect(epochs.slice(0, 2)).toEqual(committed);
    await expectExactlyOnce(org, [...ops, more]);
  });
});

describe('submissions while sealers run (real clock, 300 ms windows)', () => {
  const windowMs = 300;
  const graceMs = 100;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function chain(): Promise<ClientChain> {
    const agentId = uniqueAgentId('seal');
    const key = newKey();
    await registerAgent(admin, agentId, [key]);
    return new ClientChain(orgForHttp, agentId, key);
  }

  /** Runs the sealer until every window up to `until` is sealed. */
  async function sealThrough(until: number) {
    while (Date.now() < until + windowMs + graceMs) await sleep(50);
    const end = windowStart(until, windowMs) + windowMs;
    // A run may find the organization's lease held by an overlapping run (a loaded machine
    // stretches runs) and leave it for later: run again until the organization is sealed past `until`.
    for (let run = 0; run < 40 && ((await sealedUntil(orgForHttp)) ?? 0) < end; run++) {
      expect((await sealer(Date.now(), { epochMs: windowMs, graceMs })).errors).toEqual([]);
      if (((await sealedUntil(orgForHttp)) ?? 0) < end) await sleep(50);
    }
    expect(await sealedUntil(orgForHttp)).toBeGreaterThanOrEqual(end);
  }

  it('a submission that stalls until its window is sealed is accepted in the open window: never lost, never late', async () => {
    // The sealer visits organizations with recent activity (run-sealer.ts): give this one some.
    expect((await (await chain()).submit(admin)).res.status).toBe(200);
    const stalled = await chain();
    const record = stalled.record();
    // Hold this submission's transaction until the window it was received in has been sealed.
    const putOf = (command: Loose) => (command instanceof TransactWriteCommand ? command.input.TransactItems?.[0]?.Put : undefined);
    const held = beforeRequest(
      (command) => putOf(command)?.Item?.operation_id === record.operation_id,
      (command) => sealThrough(Number(putOf(command)!.Item!.created_at)),
    );
    const sent = Date.now();
    const res = await stalled.submitRecord(admin, record);
    vi.restoreAllMocks();
    expect(res.status).toBe(200);
    expect(held.ran()).toBe(true);
    const receivedAt = res.body.receipt.server_received_at as number;
    // Accepted again once the fence refused it: after the window it arrived in was sealed.
    expect(windowStart(receivedAt, windowMs)).toBeGreaterThan(windowStart(sent, windowMs));
    expect((await readOperation(orgForHttp, record.operation_id))?.created_at).toBe(receivedAt);

    await sealThrough(receivedAt);
    const evidence = await merkleEvidence({ ...(await readOperation(orgForHttp, record.operation_id))! }, windowMs);
    expect(evidence?.merkle).toBe(true);
    expect(evidence?.proof?.epoch_id).toBe(epochIdFor(orgForHttp, windowStart(receivedAt, windowMs)));
  });

  it('four chains submitting while two sealers run repeatedly: every operation in exactly one epoch, its own window’s', { timeout: 120_000 }, async () => {
    const chains = await Promise.all([chain(), chain(), chain(), chain()]);
    const accepted: MemberCandidate[] = [];
    let writing = true;
    const sealerLoop = async () => {
      while (writing) {
        const report = await sealer(Date.now(), { epochMs: windowMs, graceMs });
        expect(report.errors).toEqual([]);
        await sleep(Math.random() * 60);
      }
    };
    const writer = async (client: ClientChain) => {
      for (let i = 0; i < 25; i++) {
        const { res } = await client.submit(admin);
        expect(res.status).toBe(200);
        const { operation_id, server_received_at, chain_hash } = res.body.receipt;
        accepted.push({ operation_id, created_at: server_received_at, chain_hash });
        await sleep(Math.random() * 40);
      }
    };
    const sealers = [sealerLoop(), sealerLoop()];
    await Promise.all(chains.map(writer));
    writing = false;
    await Promise.all(sealers);
    await sealThrough(Math.max(...accepted.map((op) => op.created_at)));

    const epochs = await epochsOf(orgForHttp);
    const ours = new Set(accepted.map((op) => op.operation_id));
    const lists = await Promise.all(epochs.map(leafIdsOf));
    const sealedOurs = lists.flat().filter((id) => ours.has(id));
    expect(new Set(sealedOurs).size).toBe(sealedOurs.length);
    expect(sealedOurs.sort()).toEqual([...ours].sort());
    const byId = new Map(accepted.map((op) => [op.operation_id, op]));
    for (const [i, epoch] of epochs.entries()) {
      for (const id of lists[i]!) {
        if (byId.has(id)) expect(windowStart(byId.get(id)!.created_at, windowMs)).toBe(epoch.start_time);
      }
    }
  });
});
