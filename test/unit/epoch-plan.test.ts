/**
 * The pure parts of sealing: window arithmetic, deterministic epoch ids, the leaf list and
 * the plan (PROTOCOL.md "Merkle epochs"). The plan's invariants are checked as properties
 * over random organizations: every candidate in exactly one epoch or deferred, epochs only
 * for windows without one, members never after their epoch's end, late operations in the
 * next epoch sealed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { merkleRootB64u } from '@agent-ledger/protocol';
import { epochIdFor, startTimeOfEpochId } from '../../lambdas/domain/epochs/epoch-id.js';
import { leafOrder, type MemberCandidate } from '../../lambdas/domain/epochs/epoch.js';
import { buildLeafList, leafListKey, LeafListMismatchError, parseLeafList, serializeLeafList } from '../../lambdas/domain/epochs/leaf-list.js';
import { planEpochs } from '../../lambdas/domain/epochs/plan.js';
import { sealableEnd, windowStart } from '../../lambdas/domain/epochs/window.js';
import { forEachBounded } from '../../lambdas/shared/bounded.js';

const E = 1000;
const hash = (n: number) => Buffer.alloc(32, n % 256).toString('base64url');
const op = (id: string, created_at: number): MemberCandidate => ({ operation_id: id, created_at, chain_hash: hash(created_at) });

describe('windows', () => {
  it('aligns to the Unix epoch and closes a window only after the grace period', () => {
    expect(windowStart(299_999, 300_000)).toBe(0);
    expect(windowStart(300_000, 300_000)).toBe(300_000);
    // now = 10:05:59.999 with grace 60 s: the window ending 10:05 is not yet sealable.
    expect(sealableEnd(3 * 300_000 + 59_999, 300_000, 60_000)).toBe(2 * 300_000);
    expect(sealableEnd(3 * 300_000 + 60_000, 300_000, 60_000)).toBe(3 * 300_000);
  });
});

describe('epoch ids', () => {
  it('are UUIDv8 derived from (org, start_time) alone, with the start time readable back', () => {
    const id = epochIdFor('org-a', 1_700_000_100_000);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(epochIdFor('org-a', 1_700_000_100_000)).toBe(id);
    expect(epochIdFor('org-b', 1_700_000_100_000)).not.toBe(id);
    expect(epochIdFor('org-a', 1_700_000_400_000)).not.toBe(id);
    expect(startTimeOfEpochId(id)).toBe(1_700_000_100_000);
    expect(startTimeOfEpochId(id.toUpperCase())).toBe(1_700_000_100_000);
    expect(startTimeOfEpochId('0190a5d2-ac96-7d7e-b0b2-6f3c2d1e4f5a')).toBeUndefined(); // a v7, not ours
    expect(() => epochIdFor('org-a', 2 ** 48)).toThrow(RangeError);
  });

  it('sort by window', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 47 }), fc.integer({ min: 1, max: 2 ** 40 }), (start, delta) => {
        expect(epochIdFor('o', start) < epochIdFor('o', start + delta)).toBe(true);
      }),
    );
  });
});

describe('leaf lists', () => {
  const members = [op('a', 1), op('b', 2), op('c', 2)];
  const header = { epoch_id: epochIdFor('org', 0), org_id: 'org', start_time: 0, end_time: E };

  it('carry the members in order with the RFC 9162 root, and serialize deterministically', () => {
    const list = buildLeafList(header, members);
    expect(list.root_hash).toBe(merkleRootB64u(members.map((m) => m.chain_hash)));
    expect(list.leaves.map((l) => l.operation_id)).toEqual(['a', 'b', 'c']);
    expect(serializeLeafList(buildLeafList(header, members.map((m) => ({ ...m, extra: 1 }))))).toBe(serializeLeafList(list));
    expect(leafListKey('org', 0, header.epoch_id, list.root_hash)).toBe(`epochs/org/0-${header.epoch_id}-${list.root_hash}.json`);
  });

  it('are rejected when they do not hash to the committed root', () => {
    const list = buildLeafList(header, members);
    const epoch = { ...header, root_hash: list.root_hash, leaf_count: 3, store_epoch_key: 'k', created_at: 0 };
    expect(parseLeafList(serializeLeafList(list), epoch).leaves).toHaveLength(3);
    const swapped = { ...list, leaves: [list.leaves[1], list.leaves[0], list.leaves[2]] };
    expect(() => parseLeafList(JSON.stringify(swapped), epoch)).toThrow(LeafListMismatchError);
    expect(() => parseLeafList(serializeLeafList(list), { ...epoch, leaf_count: 2 })).toThrow(LeafListMismatchError);
    expect(() => parseLeafList('{not json', epoch)).toThrow(LeafListMismatchError);
    const bad = { ...list, leaves: [{ ...list.leaves[0], chain_hash: 'short' }, list.leaves[1], list.leaves[2]] };
    expect(() => parseLeafList(JSON.stringify(bad), epoch)).toThrow(LeafListMismatchError);
  });
});

describe('planEpochs', () => {
  it('puts each operation in its own window and leaves open windows alone', () => {
    const plan = planEpochs([op('b', 1500), op('a', 1500), op('c', 200), op('d', 2100)], new Set(), 2000, E);
    expect(plan.epochs.map((e) => [e.start_time, e.members.map((m) => m.operation_id)])).toEqual([
      [0, ['c']],
      [1000, ['a', 'b']],
    ]);
    expect(plan.deferred).toEqual([]);
  });

  it('carries a late operation into the next window sealed, else the latest sealable one, else defers it', () => {
    // Window 0 sealed; window 2 has a new operation: the late one joins it (not window 1).
    let plan = planEpochs([op('late', 500), op('new', 2500)], new Set([0]), 3000, E);
    expect(plan.epochs.map((e) => [e.start_time, e.members.map((m) => m.operation_id)])).toEqual([[2000, ['late', 'new']]]);
    // Nothing new: the latest sealable window (2) takes it, window 1 stays without an epoch.
    plan = planEpochs([op('late', 500)], new Set([0]), 3000, E);
    expect(plan.epochs.map((e) => e.start_time)).toEqual([2000]);
    // Every sealable window after its own is sealed already: wait for the next run.
    plan = planEpochs([op('late', 500)], new Set([0, 2000]), 3000, E);
    expect(plan.epochs).toEqual([]);
    expect(plan.deferred.map((m) => m.operation_id)).toEqual(['late']);
  });

  const orgState = fc.record({
    candidates: fc.uniqueArray(
      fc.record({ operation_id: fc.uuid(), created_at: fc.integer({ min: 0, max: 12 * E }) }),
      { selector: (c) => c.operation_id, maxLength: 60 },
    ),
    existing: fc.uniqueArray(fc.integer({ min: 0, max: 11 }), { maxLength: 8 }),
    sealableWindows: fc.integer({ min: 1, max: 12 }),
  });

  it('places every candidate exactly once, only in windows without an epoch, never after its end', () => {
    fc.assert(
      fc.property(orgState, ({ candidates, existing, sealableWindows }) => {
        const end = sealableWindows * E;
        const sealed = new Set(existing.map((w) => w * E));
        const input = candidates.map((c) => ({ ...c, chain_hash: hash(c.created_at) }));
        const plan = planEpochs(input, sealed, end, E);
        const placed = [...plan.epochs.flatMap((e) => e.members), ...plan.deferred].map((m) => m.operation_id);
        const eligible = input.filter((c) => c.created_at < end).map((c) => c.operation_id);
        expect(placed.sort()).toEqual(eligible.sort());
        for (const epoch of plan.epochs) {
          expect(sealed.has(epoch.start_time)).toBe(false);
          expect(epoch.start_time % E).toBe(0);
          expect(epoch.start_time + E).toBeLessThanOrEqual(end);
          expect(epoch.members.length).toBeGreaterThan(0);
          expect([...epoch.members].sort(leafOrder)).toEqual(epoch.members);
          for (const m of epoch.members) {
            const home = windowStart(m.created_at, E);
            expect(m.created_at).toBeLessThan(epoch.start_time + E);
            // In its own window when that one had no epoch; otherwise carried to the earliest window sealed after it.
            if (!sealed.has(home)) expect(epoch.start_time).toBe(home);
            else expect(epoch.start_time).toBe(Math.min(...plan.epochs.map((e) => e.start_time).filter((s) => s > home)));
          }
        }
        for (const m of plan.deferred) {
          const home = windowStart(m.created_at, E);
          expect(sealed.has(home)).toBe(true);
          expect(plan.epochs.some((e) => e.start_time > home)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('forEachBounded', () => {
  it('never runs more than the limit at once and stops starting work after a failure', async () => {
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const run = forEachBounded([1, 2, 3, 4, 5, 6, 7, 8], 3, async (n) => {
      started.push(n);
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      if (n === 2) throw new Error('boom');
    });
    await expect(run).rejects.toThrow('boom');
    expect(peak).toBe(3);
    expect(running).toBe(0);
    expect(started.length).toBeLessThan(8);
  });
});
