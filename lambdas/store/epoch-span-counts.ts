/**
 * Per-hour and per-day sums of epoch counts (domain/epochs/epoch-counts.ts), so that a count
 * over sealed history reads one item per hour or day instead of one per epoch (288 a day at
 * 5-minute windows).
 *
 * | item       | pk                    | sk                           | start field  |
 * |------------|-----------------------|------------------------------|--------------|
 * | day count  | ORG#<org>#EPOCH_DAYS  | DAY#<day start, 13 digits>   | `day_start`  |
 * | hour count | ORG#<org>#EPOCH_HOURS | HOUR#<hour start, 13 digits> | `hour_start` |
 *
 * The sealer writes a span's item once every window starting in that UTC hour or day is
 * sealed (domain/epochs/span-counts.ts), and a sealed window never changes, so the item is
 * final; writing it again after a crash writes the same values. Hours without an epoch get
 * no item (a reader reads their epochs, of which there are none); days get one either way,
 * as they always have.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients.js';
import { INDEX_ATTRIBUTES, padMs, queryPages, strip, table } from './dynamo.js';
import type { EpochCounts } from './epochs.js';

const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** A window [start, end) whose epoch carries no counts: a reader counts it from the index. */
type UncountedWindow = [start: number, end: number];

export type SpanUnit = 'hour' | 'day';

/** Where each unit's items live; the day items' names are those of the first stored version. */
const UNITS = {
  hour: { ms: HOUR_MS, partition: 'EPOCH_HOURS', sortPrefix: 'HOUR#', type: 'epoch_hour_count', startField: 'hour_start' },
  day: { ms: DAY_MS, partition: 'EPOCH_DAYS', sortPrefix: 'DAY#', type: 'epoch_day_count', startField: 'day_start' },
} as const satisfies Record<SpanUnit, unknown>;

export const spanMs = (unit: SpanUnit): number => UNITS[unit].ms;

export interface SpanCountItem {
  org_id: string;
  unit: SpanUnit;
  /** The UTC hour or day: its epochs are those whose window starts in [start, start + spanMs(unit)). */
  start: number;
  /** End of the span's last window (past the span's end when windows do not divide it); `start` when it has none. */
  span_end: number;
  /** Operations in the span's counted epochs (those not in `uncounted`). */
  leaf_count: number;
  /** Absent when the sum would be too large to keep: a reader then reads the span's epochs. */
  counts?: EpochCounts;
  /** Windows of the span whose epoch has no counts, so `counts` leaves them out. */
  uncounted: UncountedWindow[];
}

const spanKeys = {
  partition: (orgId: string, unit: SpanUnit) => `ORG#${orgId}#${UNITS[unit].partition}`,
  span: (orgId: string, unit: SpanUnit, start: number) => ({ pk: spanKeys.partition(orgId, unit), sk: `${UNITS[unit].sortPrefix}${padMs(start)}` }),
};

export async function putSpanCount(item: SpanCountItem): Promise<void> {
  const { unit, start, ...stored } = item;
  const { type, startField } = UNITS[unit];
  await dynamo().send(new PutCommand({ TableName: table(), Item: { ...spanKeys.span(item.org_id, unit, start), type, [startField]: start, ...stored } }));
}

/** The `unit` items with a start in [from, to), oldest first. */
export async function spanCountsBetween(orgId: string, unit: SpanUnit, from: number, to: number): Promise<SpanCountItem[]> {
  if (to <= from) return [];
  const { startField } = UNITS[unit];
  const items: SpanCountItem[] = [];
  const pages = queryPages({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': spanKeys.partition(orgId, unit), ':from': spanKeys.span(orgId, unit, from).sk, ':to': spanKeys.span(orgId, unit, to - 1).sk },
  });
  for await (const page of pages) {
    for (const raw of page) {
      const rest = strip<Omit<SpanCountItem, 'unit' | 'start'>>(raw, [...INDEX_ATTRIBUTES, 'type', startField]);
      items.push({ ...rest, unit, start: Number(raw[startField]) });
    }
  }
  return items;
}

/** The stored key of a span's item (tests alter it to show which items a count reads). */
export const spanCountKey = spanKeys.span;
