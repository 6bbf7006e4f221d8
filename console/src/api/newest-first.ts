/**
 * The audit query's rows newest first, read with the API as it is. POST /v1/audit/query answers
 * oldest first (docs/API.md §4.6) and /v1 keeps that order, so the console finds the newest
 * rows itself: it narrows the time range to a window that holds a few pages' worth of matches
 * (from the first page's `total_count`, widening or narrowing the window as the counts say),
 * reads that window to its end and shows its last rows, newest first. The next (older) page
 * starts just before the oldest row shown: its position (created_at, operation_id) is the
 * page's cursor, so the order is the API's total order, reversed, with nothing skipped or repeated.
 */
import { api, call, type RequestOf, type Schemas } from './client.js';

type Stored = Schemas['StoredOperation'];
type Filters = Pick<RequestOf<'AuditQuery'>, 'agent_id' | 'operation_type' | 'start_time' | 'end_time'>;

const HOUR = 3_600_000;
/** Rows per request while reading a window. */
const PAGE = 500;
/** Window adjustments before settling for the window at hand. */
const MOST_TRIES = 10;

interface Position {
  created_at: number;
  operation_id: string;
}

const encode = (p: Position) => `${p.created_at}.${p.operation_id}`;
function decode(cursor: string): Position {
  const dot = cursor.indexOf('.');
  return { created_at: Number(cursor.slice(0, dot)), operation_id: cursor.slice(dot + 1) };
}

/** Whether `op` comes before `p` in the API's order (created_at, then operation_id). */
const before = (op: Position, p: Position) => op.created_at < p.created_at || (op.created_at === p.created_at && op.operation_id < p.operation_id);

function query(body: RequestOf<'AuditQuery'>) {
  return call(api.POST('/v1/audit/query', { body }));
}

/** Every row of the range, page after page. */
async function readAll(body: RequestOf<'AuditQuery'>, first: Awaited<ReturnType<typeof query>>): Promise<Stored[]> {
  const rows = [...first.operations];
  for (let page = first; page.cursor; ) {
    page = await query({ ...body, cursor: page.cursor });
    rows.push(...page.operations);
  }
  return rows;
}

interface NewestPage {
  operations: Stored[];
  /** Every match of the filters. */
  total_count: number;
  /** Opens the next, older page; absent on the oldest. */
  cursor?: string;
}

/** One page of `limit` rows matching `filters`, newest first, starting before `cursor`'s row (the newest when absent). */
export async function newestFirst(filters: Filters, limit: number, cursor: string | undefined): Promise<NewestPage> {
  const from = cursor ? decode(cursor) : undefined;
  const floor = filters.start_time;
  // The end of the range read: just after the position to continue from (its millisecond
  // included, rows at or after the position dropped below), or the filters' own end.
  const end = from ? from.created_at + 1 : filters.end_time;
  const total = query({ ...filters, limit: 1 });
  let width = HOUR;
  for (let tries = 0; ; tries++) {
    const anchor = end ?? Date.now() + 1;
    const start = anchor - width;
    // The window reaches the filters' own start, or the beginning of time (start_time is at least 0).
    const reachesFloor = start <= (floor ?? 0);
    const body = { ...filters, ...(reachesFloor ? {} : { start_time: start }), ...(end === undefined ? {} : { end_time: end }), limit: PAGE };
    const first = await query(body);
    const count = first.total_count;
    const everything = reachesFloor;
    if (tries < MOST_TRIES && count <= limit && !everything) {
      // Too few in this window: widen it (by how much the count suggests, at least eightfold).
      width *= Math.max(8, Math.ceil((2 * (limit + 1)) / Math.max(1, count)));
      continue;
    }
    if (tries < MOST_TRIES && count > 4 * limit + PAGE && width > 1_000) {
      // Far more than a page: narrow it to about two pages' worth, as if they came evenly.
      width = Math.max(1_000, Math.floor((width * 2 * (limit + 1)) / count));
      continue;
    }
    const rows = (await readAll(body, first)).filter((op) => from === undefined || before(op, from));
    const shown = rows.slice(-limit).reverse();
    const oldest = shown.at(-1);
    // Older rows exist beyond this window when the range before the oldest row shown holds any.
    const more =
      oldest !== undefined &&
      (rows.length > limit || (!everything && (await query({ ...filters, end_time: oldest.created_at, ...(floor === undefined ? {} : { start_time: floor }), limit: 1 })).total_count > 0));
    return { operations: shown, total_count: (await total).total_count, ...(more && oldest ? { cursor: encode(oldest) } : {}) };
  }
}
