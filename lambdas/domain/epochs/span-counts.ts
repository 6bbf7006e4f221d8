/**
 * The sealer's per-hour and per-day sums of epoch counts (store/epoch-span-counts.ts): when a
 * sealing run moves an organization's sealed_until past the end of a UTC hour's or day's last
 * window, nothing in that span can change any more, so its epochs' counts are summed into one
 * item. A count then reads at most 23 hour items on each day the range cuts, and epochs only
 * for the hours it cuts (domain/epochs/counted-spans.ts).
 */
import { forEachBounded } from '../../shared/bounded.js';
import { putSpanCount, spanMs, type SpanCountItem, type SpanUnit } from '../../store/epoch-span-counts.js';
import { epochCountsBetween, type EpochCountsItem } from '../../store/epochs.js';
import { sumCounts } from './epoch-counts.js';
import { windowStart } from './window.js';

/** Span items written at once. */
const SPAN_CONCURRENCY = 8;

/** The end of the last window that starts in the `unit` span from `start`. */
export function spanWindowsEnd(unit: SpanUnit, start: number, epochMs: number): number {
  return windowStart(start + spanMs(unit) - 1, epochMs) + epochMs;
}

/**
 * Writes the hour and day items of every span whose windows were not all sealed at `after`
 * and are all sealed at `end` (both sealed_until values: every window ending at or before is
 * sealed). Days are written whether or not they hold an epoch; hours only when they do, so an
 * organization idle for a month does not write 720 empty items when it wakes. The spans'
 * epochs are read in one range read, not one read per span.
 */
export async function recordCompletedSpans(orgId: string, range: { after: number; end: number; epochMs: number }): Promise<void> {
  const spans: [SpanUnit, number][] = [];
  for (const unit of ['hour', 'day'] as const) {
    const ms = spanMs(unit);
    // A span's last window may end after the span (windows that do not divide it), so start a span early.
    for (let start = Math.floor(range.after / ms) * ms - ms; start + ms <= range.end; start += ms) {
      const windowsEnd = spanWindowsEnd(unit, start, range.epochMs);
      if (windowsEnd > range.after && windowsEnd <= range.end) spans.push([unit, start]);
    }
  }
  if (spans.length === 0) return;
  const from = Math.min(...spans.map(([, start]) => start));
  const to = Math.max(...spans.map(([unit, start]) => start + spanMs(unit)));
  const epochs = await epochCountsBetween(orgId, from, to);
  const byUnit = { hour: groupByStart(epochs, spanMs('hour')), day: groupByStart(epochs, spanMs('day')) };
  await forEachBounded(spans, SPAN_CONCURRENCY, async ([unit, start]) => {
    const inSpan = byUnit[unit].get(start) ?? [];
    if (unit === 'day' || inSpan.length > 0) await putSpanCount(spanCountOf(orgId, unit, start, inSpan));
  });
}

/** `epochs` by the start of the span of `ms` their window starts in. */
function groupByStart(epochs: readonly EpochCountsItem[], ms: number): Map<number, EpochCountsItem[]> {
  const groups = new Map<number, EpochCountsItem[]>();
  for (const epoch of epochs) {
    const start = Math.floor(epoch.start_time / ms) * ms;
    const group = groups.get(start);
    if (group) group.push(epoch);
    else groups.set(start, [epoch]);
  }
  return groups;
}

function spanCountOf(orgId: string, unit: SpanUnit, start: number, epochs: readonly EpochCountsItem[]): SpanCountItem {
  const counted = epochs.filter((epoch) => epoch.counts !== undefined);
  const counts = sumCounts(counted.map((epoch) => epoch.counts!));
  return {
    org_id: orgId,
    unit,
    start,
    span_end: Math.max(start, ...epochs.map((epoch) => epoch.end_time)),
    leaf_count: counted.reduce((sum, epoch) => sum + epoch.leaf_count, 0),
    ...(counts ? { counts } : {}),
    uncounted: epochs.filter((epoch) => epoch.counts === undefined).map((epoch) => [epoch.start_time, epoch.end_time]),
  };
}
