/**
 * Operations per bucket (UTC hour or day) and per agent over [from, to), from the counts the
 * sealer already keeps (domain/epochs/epoch-counts.ts): nothing more is written per operation.
 *
 *   - a UTC day bucket whose day item (store/epoch-span-counts.ts) has counts counts from it;
 *   - an hour (of an hour bucket, or of a day bucket without its item) from its hour item;
 *   - an epoch with counts that lies inside one bucket counts from its own counts (epoch
 *     windows divide an hour: 5 minutes by default);
 *   - the rest (an epoch a bucket boundary cuts, one without counts, a day item's uncounted
 *     windows, and everything at or after sealed_until, which the sealer has not reached) is
 *     read from the index and put into buckets operation by operation.
 *
 * Over a sealed organization a month of days reads 30 day items and the current day's hour
 * items; a day of hours reads 24 hour items and the epochs of the current hour (12 at
 * 5-minute windows), and both add the open tail: at most one window and the sealer's grace
 * period of index entries.
 */
import { forEachBounded } from '../../shared/bounded.js';
import { DAY_MS, spanMs } from '../../store/epoch-span-counts.js';
import type { EpochCounts } from '../../store/epochs.js';
import { countOperations } from '../../store/operation-index.js';
import { operationsInRange } from '../../store/operation-windows.js';
import { recentSealedUntil } from '../../store/sealer-state.js';
import { coverSealed, type Range } from '../epochs/counted-spans.js';

/** Buckets of `size` ms from `from` (inclusive) to `to` (exclusive); from and to are multiples of size. */
interface BucketGrid {
  from: number;
  to: number;
  size: number;
}

/** The agent under which an index entry without agent_id is counted (an index built with a narrower projection). */
export const UNKNOWN_AGENT = '';

/** Per bucket, operations by agent_id. */
type BucketCounts = Map<string, number>[];

/** Index reads in flight at once (each is itself several requests). */
const RANGE_CONCURRENCY = 4;

export async function bucketCounts(orgId: string, grid: BucketGrid, agentId: string | undefined): Promise<BucketCounts> {
  const counts: BucketCounts = Array.from({ length: (grid.to - grid.from) / grid.size }, () => new Map());
  const bucketOf = (ms: number) => Math.floor((ms - grid.from) / grid.size);
  const add = (bucket: number, agent: string, n: number) => {
    if (n > 0) counts[bucket]!.set(agent, (counts[bucket]!.get(agent) ?? 0) + n);
  };
  const addCounts = (bucket: number, kept: EpochCounts) => {
    if (agentId !== undefined) add(bucket, agentId, kept.agents[agentId] ?? 0);
    else for (const [agent, n] of Object.entries(kept.agents)) add(bucket, agent, n);
  };

  const sealed = Math.min(grid.to, Math.max(grid.from, await recentSealedUntil(orgId)));
  const left: Range[] = [];
  if (grid.from < sealed) {
    // A span whose last window reaches into the next span is read by epoch, that window from the index.
    const units = grid.size === DAY_MS ? (['day', 'hour'] as const) : (['hour'] as const);
    const { spans, epochs } = await coverSealed(orgId, [grid.from, sealed], units, (item) => item.span_end <= item.start + spanMs(item.unit));
    for (const span of spans) {
      addCounts(bucketOf(span.start), span.counts!);
      left.push(...span.uncounted);
    }
    for (const epoch of epochs) {
      const lo = Math.max(grid.from, epoch.start_time);
      const hi = Math.min(sealed, epoch.end_time);
      const whole = lo === epoch.start_time && hi === epoch.end_time && bucketOf(lo) === bucketOf(hi - 1);
      if (epoch.counts !== undefined && whole) addCounts(bucketOf(lo), epoch.counts);
      else left.push([lo, hi]);
    }
  }
  if (sealed < grid.to) left.push([sealed, grid.to]);

  await forEachBounded(left, RANGE_CONCURRENCY, async ([lo, hi]) => {
    if (agentId !== undefined) {
      // One agent: a COUNT of its own index partition per bucket the range touches.
      const pieces: Range[] = [];
      for (let at = lo; at < hi; at = Math.min(hi, grid.from + (bucketOf(at) + 1) * grid.size)) pieces.push([at, Math.min(hi, grid.from + (bucketOf(at) + 1) * grid.size)]);
      for (const [a, b] of pieces) add(bucketOf(a), agentId, await countOperations(orgId, { agentId, startTime: a, endTime: b }));
    } else {
      for (const operation of await operationsInRange(orgId, lo, hi)) add(bucketOf(operation.created_at), operation.agent_id ?? UNKNOWN_AGENT, 1);
    }
  });
  return counts;
}
