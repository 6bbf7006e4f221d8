/**
 * How many operations match an audit filter (docs/API.md §4.6 total_count; an export's
 * operations_total, §4.8), without reading every matching index entry.
 *
 * An organization's history below its sealed_until is cut into sealed windows, each with its
 * epoch, whose counts by agent and type the sealer kept (domain/epochs/epoch-counts.ts) and
 * summed per UTC day (day-counts.ts). A window without an epoch has no operations. So:
 *
 *   - a day wholly inside the range counts from its day item;
 *   - an epoch wholly inside the range, on the range's first or last day, from its own counts;
 *   - what is left (a window the range cuts, an epoch or day without counts, and everything
 *     at or after sealed_until, which the sealer has not reached) is counted from the index
 *     with Select COUNT (store/operation-index.ts).
 *
 * Over a long-sealed organization a count reads a day item per day, the epochs of two days
 * and the open tail of at most one window and a grace period, whatever the number of matches.
 */
import { forEachBounded, mapBounded } from '../../shared/bounded.js';
import { DAY_MS, dayCountsBetween } from '../../store/epoch-day-counts.js';
import { epochCountsBefore, epochCountsBetween, type EpochCountsItem } from '../../store/epochs.js';
import { countOperations, type OperationFilter } from '../../store/operation-index.js';
import { sealedUntil } from '../../store/sealer-state.js';
import { matchingCount } from '../epochs/epoch-counts.js';

/** A time range [from, to) left to count from the index. */
type Range = [from: number, to: number];

/** Index counts in flight at once (each is itself several requests). */
const RANGE_CONCURRENCY = 4;

/** Every operation of `orgId` matching `filter`, whose endTime bounds the range (exclusive). */
export async function countMatches(orgId: string, filter: OperationFilter & { endTime: number }): Promise<number> {
  const start = filter.startTime ?? 0;
  const end = filter.endTime;
  if (end <= start) return 0;
  const sealed = Math.min(end, (await sealedUntil(orgId)) ?? 0);
  const indexed = (range: Range) => countOperations(orgId, { ...filter, startTime: range[0], endTime: range[1] });
  // The open tail is counted from the index while the sealed part is added up.
  const tail = Math.max(start, sealed) < end ? indexed([Math.max(start, sealed), end]) : Promise.resolve(0);
  const left: Range[] = [];
  const [sealedCount, tailCount] = await Promise.all([start < sealed ? countSealed(orgId, filter, [start, sealed], left) : 0, tail]);
  const counts = await mapBounded(left, RANGE_CONCURRENCY, indexed);
  return counts.reduce((sum, n) => sum + n, sealedCount + tailCount);
}

/** The range's count from day items and epochs; ranges they do not cover go to `left`. */
async function countSealed(orgId: string, filter: OperationFilter, [from, to]: Range, left: Range[]): Promise<number> {
  const firstDay = Math.ceil(from / DAY_MS) * DAY_MS;
  const daysEnd = Math.floor(to / DAY_MS) * DAY_MS;
  let total = 0;
  // Ranges of the sealed part read epoch by epoch: the partial days at both ends, and days without a usable item.
  const byEpoch: Range[] = [];
  const countedDays = new Set<number>();
  if (firstDay < daysEnd) {
    byEpoch.push([from, firstDay]);
    let covered = firstDay;
    for (const day of await dayCountsBetween(orgId, firstDay, daysEnd)) {
      // A day whose last window reaches past the range (windows that do not divide a day) is read by epoch.
      if (day.counts === undefined || day.span_end > to) continue;
      byEpoch.push([covered, day.day_start]);
      covered = day.day_start + DAY_MS;
      countedDays.add(day.day_start);
      total += matchingCount(day.counts, day.leaf_count, filter);
      left.push(...day.uncounted);
    }
    byEpoch.push([covered, to]);
  } else {
    byEpoch.push([from, to]);
  }
  for (const epoch of await epochsOverlapping(orgId, from, byEpoch.filter(([a, b]) => a < b))) {
    // A counted day's last window may reach into the next range: its day item counted it.
    if (countedDays.has(Math.floor(epoch.start_time / DAY_MS) * DAY_MS)) continue;
    const lo = Math.max(from, epoch.start_time);
    const hi = Math.min(to, epoch.end_time);
    if (epoch.counts !== undefined && lo === epoch.start_time && hi === epoch.end_time) total += matchingCount(epoch.counts, epoch.leaf_count, filter);
    else left.push([lo, hi]);
  }
  return total;
}

/**
 * The epochs that overlap `ranges` (parts of a range from `from`), each once: those starting
 * in a range, and the one starting before `from` whose window reaches past it.
 */
export async function epochsOverlapping(orgId: string, from: number, ranges: readonly Range[]): Promise<EpochCountsItem[]> {
  const found: EpochCountsItem[] = [];
  const before = epochCountsBefore(orgId, from).then((epoch) => {
    if (epoch !== undefined && epoch.end_time > from) found.push(epoch);
  });
  await Promise.all([before, forEachBounded(ranges, RANGE_CONCURRENCY, async ([a, b]) => void found.push(...(await epochCountsBetween(orgId, a, b))))]);
  return found;
}
