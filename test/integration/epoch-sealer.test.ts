/**
 * The epoch sealer against DynamoDB Local and s3rver (PROTOCOL.md, Merkle epochs):
 * windows sealed once with the RFC 9162 root over their members in leaf order, late
 * operations carried forward, re-runs that change nothing, crashes at each step that a re-run
 * finishes into the same epochs, and writers committing while sealers run, with every
 * operation in exactly one epoch.
 *
 * Rows are written in the ledger's layout with chosen created_at values (E = 1 s windows of
 * a fixed past day), so the sealer is driven by `now` and nothing waits for the clock, except
 * the concurrency test, which runs on the real clock with 200 ms windows.
 */
import { randomUUID } from 'node:crypto';
import { merkleRootB64u } from '@agent-ledger/protocol';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { epochIdFor } from '../../lambdas/domain/epochs/epoch-id.js';
import { leafOrder, type MemberCandidate } from '../../lambdas/domain/epochs/epoch.js';
import { runSealer, type SealerRunOptions } from '../../lambdas/domain/epochs/run-sealer.js';
import { EVENT_CLAIM_MS } from '../../lambdas/domain/epochs/follow-ups.js';
import { windowStart } from '../../lambdas/domain/epochs/window.js';
import { epochsOf, fixtureOp, leafIdsOf, rawOperationRow, recordingQueue, writeOperationRows } from '../support/epoch-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import type * as EpochStore from '../../lambdas/store/epochs.js';
import type * as EpochMembers from '../../lambdas/store/epoch-members.js';

/**
 * Where the next simulated crash happens (vi.mock factories below read it). A crash ends the
 * "process": from then on until the test clears it, every marking call fails too, so not even
 * the same run's follow-up pass can repair anything.
 */
const crash = vi.hoisted(() => ({ at: undefined as 'before-commit' | 'half-marked' | undefined, struck: false }));

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

vi.mock('../../lambdas/store/epoch-members.js', async (importOriginal) => {
  const real = await importOriginal<typeof EpochMembers>();
  return {
    ...real,
    markMembers: async (...args: Parameters<typeof real.markMembers>) => {
      if (crash.at === 'half-marked') {
        const [orgId, epochId, members] = args;
        if (!crash.struck) await real.markMembers(orgId, epochId, members.slice(0, Math.ceil(members.length / 2)));
        crash.struck = true;
        throw new Error('simulated crash half-way through marking');
      }
      return real.markMembers(...args);
    },
  };
});

const E = 1_000;
const GRACE = 100;
/** A fixed, aligned past instant: windows T, T+E, ... */
const T = 1_700_000_000_000;

useLedgerStack({ env: { LEDGER_EPOCH_MS: '3600000' } });
beforeAll(async () => {
  // The stack's own timer is kept out of the way (one tick per hour); tests call the sealer.
});

type RecordingQueue = ReturnType<typeof recordingQueue>;

function sealer(now: number, overrides: Partial<Omit<SealerRunOptions, 'queue'>> & { queue?: RecordingQueue } = {}) {
  const queue = overrides.queue ?? recordingQueue();
  const run = () =>
    runSealer({
      now,
      epochMs: E,
      graceMs: GRACE,
      deadline: Date.now() + 60_000,
      leaseUntil: Date.now() + 120_000,
      holder: randomUUID(),
      queue,
      tsa: undefined,
      ...overrides,
    });
  return { run, queue };
}

/** Everything the sealer decides for an organization, to compare before and after a run. */
async function snapshot(orgId: string, ops: readonly MemberCandidate[]) {
  const epochs = await epochsOf(orgId);
  const rows = await Promise.all(ops.map((op) => rawOperationRow(orgId, op.operation_id)));
  return { epochs, rows };
}

async function expectExactlyOnce(orgId: string, ops: readonly MemberCandidate[]) {
  const epochs = await epochsOf(orgId);
  const lists = await Promise.all(epochs.map(leafIdsOf));
  const all = lists.flat();
  expect(new Set(all).size).toBe(all.length); // no operation in two epochs
  expect([...all].sort()).toEqual(ops.map((op) => op.operation_id).sort());
  expect(epochs.reduce((sum, epoch) => sum + epoch.leaf_count, 0)).toBe(ops.length);
  const members = epochs.flatMap((epoch, i) => lists[i]!.map((id, index) => ({ id, epoch_id: epoch.epoch_id, leaf_index: index })));
  const rows = await Promise.all(members.map((member) => rawOperationRow(orgId, member.id)));
  for (const [i, member] of members.entries()) {
    expect(rows[i]).toMatchObject({ epoch_id: member.epoch_id, leaf_index: member.leaf_index });
    expect(rows[i]?.gsi3pk).toBeUndefined();
  }
  return { epochs, lists };
}

describe('sealing', () => {
  it('seals each closed window into one epoch: RFC 9162 root, leaf order, leaf list, marked rows, one event', async () => {
    const org = randomUUID();
    const first = [fixtureOp(T + 100), fixtureOp(T + 100), fixtureOp(T + 900)];
    const second = [fixtureOp(T + E + 500)];
    const open = fixtureOp(T + 2 * E + 50);
    await writeOperationRows(org, [...first, ...second, open]);

    const { run, queue } = sealer(T + 2 * E + GRACE);
    const report = await run();
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
      members_marked: true,
      anchor_wanted: false,
    });
    expect(epoch!.store_epoch_key).toBe(`epochs/${org}/${T}-${epoch!.epoch_id}-${epoch!.root_hash}.json`);
    expect(await leafIdsOf(epoch!)).toEqual(ordered.map((op) => op.operation_id));
    await expectExactlyOnce(org, [...first, ...second]);
    expect((await rawOperationRow(org, open.operation_id))?.gsi3pk).toBeDefined();

    const events = queue.sent.filter((message) => message.org_id === org);
    expect(events.map((message) => message.data).sort((a, b) => Number(a.start_time) - Number(b.start_time))).toEqual(
      epochs.map((e) => ({ epoch_id: e.epoch_id, start_time: e.start_time, end_time: e.end_time, root_hash: e.root_hash, leaf_count: e.leaf_count })),
    );
    expect(events.every((message) => message.event === 'epoch.created')).toBe(true);
  });

  it('changes nothing when run again', async () => {
    const org = randomUUID();
    const ops = [fixtureOp(T + 10 * E + 1), fixtureOp(T + 11 * E + 2)];
    await writeOperationRows(org, ops);
    await sealer(T + 12 * E + GRACE).run();
    const before = await snapshot(org, ops);

    const again = sealer(T + 12 * E + GRACE);
    const report = await again.run();
    expect(report.errors).toEqual([]);
    expect(again.queue.sent.filter((message) => message.org_id === org)).toEqual([]);
    expect(await snapshot(org, ops)).toEqual(before);
  });

  it('carries a late operation into the next epoch the organization seals, exactly once', async () => {
    const org = randomUUID();
    const early = fixtureOp(T + 20 * E + 10);
    await writeOperationRows(org, [early]);
    await sealer(T + 21 * E + GRACE).run();

    // Committed after its window (T+20E) was sealed; the next window with news is T+22E.
    const late = fixtureOp(T + 20 * E + 999);
    const next = fixtureOp(T + 22 * E + 5);
    await writeOperationRows(org, [late, next]);
    await sealer(T + 23 * E + GRACE).run();
    const epochs = await epochsOf(org);
    expect(epochs.map((e) => e.start_time)).toEqual([T + 20 * E, T + 22 * E]);
    expect(await leafIdsOf(epochs[1]!)).toEqual([late.operation_id, next.operation_id]);

    // A late one in a quiet organization waits for the latest sealable window, not for news.
    const quiet = fixtureOp(T + 22 * E + 999);
    await writeOperationRows(org, [quiet]);
    await sealer(T + 23 * E + GRACE).run(); // the only window after its own is sealed: deferred
    expect((await epochsOf(org)).length).toBe(2);
    await sealer(T + 24 * E + GRACE).run();
    const last = (await epochsOf(org)).at(-1)!;
    expect(last.start_time).toBe(T + 23 * E);
    expect(await leafIdsOf(last)).toEqual([quiet.operation_id]);
    await expectExactlyOnce(org, [early, late, next, quiet]);
  });

  it('does not reseal a row the unsealed index still shows after it was sealed', async () => {
    const org = randomUUID();
    const op = fixtureOp(T + 30 * E + 1);
    await writeOperationRows(org, [op]);
    await sealer(T + 31 * E + GRACE).run();
    const [epoch] = await epochsOf(org);
    // What a lagging index replica still shows: the old entry, while the table row is marked.
    const stale = await rawOperationRow(org, op.operation_id);
    await writeOperationRows(org, [op], { epoch_id: stale!.epoch_id, leaf_index: stale!.leaf_index });

    const report = await sealer(T + 40 * E + GRACE).run();
    expect(report.errors).toEqual([]);
    expect(await epochsOf(org)).toEqual([epoch]);
  });
});

describe('crash safety', () => {
  it('a crash after the leaf list, before the commit: the re-run makes the same epoch', async () => {
    const org = randomUUID();
    const ops = [fixtureOp(T + 50 * E + 1), fixtureOp(T + 50 * E + 2)];
    await writeOperationRows(org, ops);
    crash.at = 'before-commit';
    const crashed = await sealer(T + 51 * E + GRACE).run();
    expect(crashed.errors).toEqual([expect.stringContaining('simulated crash after the leaf list')]);
    expect(await epochsOf(org)).toEqual([]);

    await sealer(T + 51 * E + GRACE).run();
    const [epoch, ...rest] = await epochsOf(org);
    expect(rest).toEqual([]);
    expect(epoch).toMatchObject({ epoch_id: epochIdFor(org, T + 50 * E), leaf_count: 2 });
    await expectExactlyOnce(org, ops);
  });

  it('a crash half-way through marking: the re-run finishes the committed epoch from its leaf list', async () => {
    const org = randomUUID();
    const ops = Array.from({ length: 40 }, (_, i) => fixtureOp(T + 60 * E + i));
    await writeOperationRows(org, ops);
    const queue = recordingQueue();
    crash.at = 'half-marked';
    const crashed = await sealer(T + 61 * E + GRACE, { queue }).run();
    crash.at = undefined;
    expect(crashed.errors[0]).toContain('simulated crash half-way');
    const [committed] = await epochsOf(org);
    expect(committed).toMatchObject({ members_marked: false, leaf_count: 40 });
    const marked = await Promise.all(ops.map((op) => rawOperationRow(org, op.operation_id)));
    expect(marked.filter((row) => row?.epoch_id).length).toBe(20);

    // Meanwhile one more operation arrives for that window: it must not join the committed epoch.
    const straggler = fixtureOp(T + 60 * E + 999);
    await writeOperationRows(org, [straggler]);
    const report = await sealer(T + 62 * E + GRACE, { queue }).run();
    expect(report.errors).toEqual([]);
    const epochs = await epochsOf(org);
    // The same epoch, finished: only the bookkeeping moved on (and it owes nothing more).
    const { follow_up: _owed, ...sealed } = committed!;
    expect(epochs[0]).toEqual({ ...sealed, members_marked: true, event_sent_at: expect.any(Number) });
    expect(epochs.map((e) => e.start_time)).toEqual([T + 60 * E, T + 61 * E]);
    await expectExactlyOnce(org, [...ops, straggler]);
    expect(queue.sent.filter((m) => m.data.epoch_id === committed!.epoch_id)).toHaveLength(1);
  });

  it('a failed event send is retried once the claim expires, and sent exactly once', async () => {
    const org = randomUUID();
    await writeOperationRows(org, [fixtureOp(T + 70 * E + 1)]);
    const queue = recordingQueue();
    queue.failNext();
    const first = await sealer(T + 71 * E + GRACE, { queue }).run();
    expect(first.errors).toEqual([expect.stringContaining('simulated queue outage')]);
    const [epoch] = await epochsOf(org);
    expect(epoch!.event_sent_at).toBeUndefined();

    // Within the claim nobody sends (a sender may still be at it); after it, one run does.
    await sealer(T + 71 * E + GRACE, { queue }).run();
    expect(queue.sent.filter((m) => m.org_id === org)).toHaveLength(0);
    const later = () => Date.now() + EVENT_CLAIM_MS + 1;
    await sealer(T + 71 * E + GRACE, { queue, clock: later }).run();
    await sealer(T + 71 * E + GRACE, { queue, clock: later }).run();
    expect(queue.sent.filter((m) => m.org_id === org).map((m) => m.data.epoch_id)).toEqual([epoch!.epoch_id]);
    expect((await epochsOf(org))[0]!.event_sent_at).toEqual(expect.any(Number));
  });
});

describe('concurrency', () => {
  it('writers committing while two sealers run repeatedly: every operation in exactly one epoch', async () => {
    const org = randomUUID();
    const windowMs = 200;
    const graceMs = 100;
    const written: MemberCandidate[] = [];
    const lateOnes: MemberCandidate[] = [];
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let writing = true;

    // A submission takes its created_at on receipt and commits a little later.
    const writer = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const op = fixtureOp(Date.now());
        await sleep(Math.random() * 30);
        await writeOperationRows(org, [op]);
        written.push(op);
      }
    };
    // And a few commit only after their window was sealed: late by construction. Each takes
    // its created_at next to an operation that commits at once, then waits for that one's epoch.
    const lateWriter = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const onTime = fixtureOp(Date.now());
        const late = fixtureOp(onTime.created_at);
        await writeOperationRows(org, [onTime]);
        written.push(onTime);
        const home = windowStart(onTime.created_at, windowMs);
        const deadline = Date.now() + 10_000;
        while (!(await epochsOf(org)).some((epoch) => epoch.start_time === home)) {
          if (Date.now() > deadline) throw new Error(`window ${home} was not sealed within 10 s`);
          await sleep(20);
        }
        await writeOperationRows(org, [late]);
        written.push(late);
        lateOnes.push(late);
      }
    };
    const sealerLoop = async () => {
      while (writing) {
        const report = await sealer(Date.now(), { epochMs: windowMs, graceMs }).run();
        expect(report.errors).toEqual([]);
        await sleep(Math.random() * 40);
      }
    };

    const sealers = [sealerLoop(), sealerLoop()];
    await Promise.all([writer(60), writer(60), writer(60), lateWriter(4)]);
    writing = false;
    await Promise.all(sealers);
    // Drain: once every window has closed, runs until nothing is left (late ones may need two).
    for (let i = 0; i < 3; i++) {
      await sealer(Date.now() + 10 * windowMs, { epochMs: windowMs, graceMs }).run();
    }

    const { epochs, lists } = await expectExactlyOnce(org, written);
    expect(new Set(epochs.map((e) => e.start_time)).size).toBe(epochs.length);
    for (const late of lateOnes) {
      const holder = epochs[lists.findIndex((ids) => ids.includes(late.operation_id))]!;
      expect(holder.start_time).toBeGreaterThan(windowStart(late.created_at, windowMs));
    }
    const before = await snapshot(org, written);
    await sealer(Date.now() + 20 * windowMs, { epochMs: windowMs, graceMs }).run();
    expect(await snapshot(org, written)).toEqual(before);
  });
});
