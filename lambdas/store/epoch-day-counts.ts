/**
 * Per-day sums of epoch counts (domain/epochs/epoch-counts.ts), so that a count over months
 * of sealed history reads one item per day instead of one per epoch.
 *
 * | item      | pk                    | sk                         |
 * |-----------|-----------------------|----------------------------|
 * | day count | ORG#<org>#EPOCH_DAYS  | DAY#<day start, 13 digits> |
 *
 * The sealer writes a day's item once every window starting in that UTC day is sealed
 * (seal-organization.ts), and a sealed window never changes, so the item is final; writing
 * it again after a crash writes the same values.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients.js';
import { INDEX_ATTRIBUTES, padMs, queryPages, strip, table } from './dynamo.js';
import type { EpochCounts } from './epochs.js';

export const DAY_MS = 86_400_000;

/** A window [start, end) whose epoch carries no counts: a reader counts it from the index. */
export type UncountedWindow = [start: number, end: number];

export interface DayCountItem {
  org_id: string;
  /** The UTC day: its epochs are those whose window starts in [day_start, day_start + DAY_MS). */
  day_start: number;
  /** End of the day's last window (past the day's end when windows do not divide a day); day_start when it has none. */
  span_end: number;
  /** Operations in the day's counted epochs (those not in `uncounted`). */
  leaf_count: number;
  /** Absent when the day's sum would be too large to keep: a reader then reads the day's epochs. */
  counts?: EpochCounts;
  /** Windows of the day whose epoch has no counts, so `counts` leaves them out. */
  uncounted: UncountedWindow[];
}

const dayKeys = {
  partition: (orgId: string) => `ORG#${orgId}#EPOCH_DAYS`,
  day: (orgId: string, dayStart: number) => ({ pk: `ORG#${orgId}#EPOCH_DAYS`, sk: `DAY#${padMs(dayStart)}` }),
};

export async function putDayCount(item: DayCountItem): Promise<void> {
  await dynamo().send(new PutCommand({ TableName: table(), Item: { ...dayKeys.day(item.org_id, item.day_start), type: 'epoch_day_count', ...item } }));
}

/** The day items with day_start in [from, to), oldest first. */
export async function dayCountsBetween(orgId: string, from: number, to: number): Promise<DayCountItem[]> {
  if (to <= from) return [];
  const items: DayCountItem[] = [];
  const pages = queryPages({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': dayKeys.partition(orgId), ':from': dayKeys.day(orgId, from).sk, ':to': dayKeys.day(orgId, to - 1).sk },
  });
  for await (const page of pages) items.push(...page.map((raw) => strip<DayCountItem>(raw, INDEX_ATTRIBUTES)));
  return items;
}
