/**
 * How many operations match an audit filter (docs/API.md §4.6 total_count; an export's
 * operations_total, §4.8), without reading every matching index entry.
 *
 * An organization's history below its sealed_until is cut into sealed windows, each with its
 * epoch, whose counts by agent and type the sealer kept (domain/epochs/epoch-counts.ts) and
 * summed per UTC hour and day (domain/epochs/span-counts.ts). A window without an epoch has
 * no operations. So:
 *
 *   - a day wholly inside the range counts from its day item;
 *   - an hour wholly inside the rest of the range (its first and last days) from its hour item;
 *   - an epoch wholly inside the range, in the hours the range cuts, from its own counts;
 *   - what is left (a window the range cuts, an epoch or day without counts, and everything
 *     at or after sealed_until, which the sealer has not reached) is counted from the index
 *     with Select COUNT (store/operation-index.ts).
 *
 * Over a long-sealed organization a count reads a day item per day, at most 46 hour items on
 * the range's first and last days, the epochs of two hours and the open tail of at most one
 * window and a grace period, whatever the number of matches: in one round of parallel reads
 * (domain/epochs/counted-spans.ts) beside the tail's, once this process knows sealed_until.
 */
import { mapBounded } from '../../shared/bounded.js';
import { countOperations, type OperationFilter } from '../../store/operation-index.js';
import { recentSealedUntil } from '../../store/sealer-state.js';
import { coverSealed, type Range } from '../epochs/counted-spans.js';
import { matchingCount } from '../epochs/epoch-counts.js';

/** Index counts in flight at once (each is itself several requests). */
const RANGE_CONCURRENCY = 4;

/** Every operation of `orgId` matching `filter`, whose endTime bounds the range (exclusive). */
export async function countMatches(orgId: string, filter: OperationFilter & { endTime: number }): Promise<number> {
  const start = filter.startTime ?? 0;
  const end = filter.endTime;
  if (end <= start) return 0;
  const sealed = Math.min(end, await recentSealedUntil(orgId));
  const indexed = (range: Range) => countOperations(orgId, { ...filter, startTime: range[0], endTime: range[1] });
  // The open tail is counted from the index while the sealed part is added up.
  const tail = Math.max(start, sealed) < end ? indexed([Math.max(start, sealed), end]) : Promise.resolve(0);
  const left: Range[] = [];
  const [sealedCount, tailCount] = await Promise.all([start < sealed ? countSealed(orgId, filter, [start, sealed], left) : 0, tail]);
  const counts = await mapBounded(left, RANGE_CONCURRENCY, indexed);
  return counts.reduce((sum, n) => sum + n, sealedCount + tailCount);
}

/** The range's count from day and hour items and epochs; ranges they do not cover go to `left`. */
async function countSealed(orgId: string, filter: OperationFilter, [from, to]: Range, left: Range[]): Promise<number> {
  // A span whose last window reaches past the range's end (windows that do not divide it) is read by epoch.
  const { spans, epochs } = await coverSealed(orgId, [from, to], ['day', 'hour'], (item) => item.span_end <= to);
  let total = 0;
  for (const span of spans) {
    total += matchingCount(span.counts!, span.leaf_count, filter);
    left.push(...span.uncounted);
  }
  for (const epoch of epochs) {
    const lo = Math.max(from, epoch.start_time);
    const hi = Math.min(to, epoch.end_time);
    if (epoch.counts !== undefined && lo === epoch.start_time && hi === epoch.end_time) total += matchingCount(epoch.counts, epoch.leaf_count, filter);
    else left.push([lo, hi]);
  }
  return total;
}
