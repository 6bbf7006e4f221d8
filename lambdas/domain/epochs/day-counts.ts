/**
 * The sealer's per-day sums of epoch counts (store/epoch-day-counts.ts): when a sealing run
 * moves an organization's sealed_until past the end of a UTC day's last window, nothing in
 * that day can change any more, so its epochs' counts are summed into one item.
 */
import { forEachBounded } from '../../shared/bounded.js';
import { DAY_MS, putDayCount, type DayCountItem } from '../../store/epoch-day-counts.js';
import { epochItemsBetween } from '../../store/epochs.js';
import { sumCounts } from './epoch-counts.js';
import { windowStart } from './window.js';

/** Day items written at once. */
const DAY_CONCURRENCY = 8;

/** The end of the last window that starts in the day from `dayStart`. */
export function dayWindowsEnd(dayStart: number, epochMs: number): number {
  return windowStart(dayStart + DAY_MS - 1, epochMs) + epochMs;
}

/**
 * Writes the day item of every day whose windows were not all sealed at `after` and are all
 * sealed at `end` (both sealed_until values: every window ending at or before is sealed).
 */
export async function recordCompletedDays(orgId: string, range: { after: number; end: number; epochMs: number }): Promise<void> {
  const days: number[] = [];
  // A day's last window may end after the day (windows that do not divide a day), so start a day early.
  for (let day = Math.floor(range.after / DAY_MS) * DAY_MS - DAY_MS; day + DAY_MS <= range.end; day += DAY_MS) {
    const windowsEnd = dayWindowsEnd(day, range.epochMs);
    if (windowsEnd > range.after && windowsEnd <= range.end) days.push(day);
  }
  await forEachBounded(days, DAY_CONCURRENCY, async (day) => putDayCount(await dayCountOf(orgId, day)));
}

async function dayCountOf(orgId: string, dayStart: number): Promise<DayCountItem> {
  const epochs = await epochItemsBetween(orgId, dayStart, dayStart + DAY_MS);
  const counted = epochs.filter((epoch) => epoch.counts !== undefined);
  const counts = sumCounts(counted.map((epoch) => epoch.counts!));
  return {
    org_id: orgId,
    day_start: dayStart,
    span_end: Math.max(dayStart, ...epochs.map((epoch) => epoch.end_time)),
    leaf_count: counted.reduce((sum, epoch) => sum + epoch.leaf_count, 0),
    ...(counts ? { counts } : {}),
    uncounted: epochs.filter((epoch) => epoch.counts === undefined).map((epoch) => [epoch.start_time, epoch.end_time]),
  };
}
