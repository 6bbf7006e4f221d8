/**
 * An organization's operations in (created_at, operation_id) order, filtered by agent and/or
 * operation type and by a time range: the audit query (SPEC.md §4.6) and the exports
 * (SPEC.md §4.8) read through here. Every combination of filters is a Query of the index
 * whose partitions hold exactly the matching operations, with the time range on its sort
 * key (`<created_at 13 digits>#<operation_id>`):
 *
 * | filter         | index             | partitions                                          |
 * |----------------|-------------------|-----------------------------------------------------|
 * | none           | gsi2              | ORG#<org>#OPS#<shard> (8, by agent) and ORG#<org>#OPS |
 * | agent          | ops_by_agent      | ORG#<org>#AGENT#<agent>#OPS                         |
 * | type           | ops_by_type       | ORG#<org>#TYPE#<type>#<shard> (8, by agent)         |
 * | agent and type | ops_by_agent_type | ORG#<org>#AGENT#<agent>#TYPE#<type>                 |
 *
 * No FilterExpression anywhere: a page reads only index entries of rows it may return, and a
 * count reads only matching entries. The organization-wide time index and the type index
 * are sharded by agent, so that no partition takes all of an organization's writes
 * (store/ledger-items.ts): a page reads each shard after the same position and merges them,
 * since the order is one total order. The audit indexes hold keys
 * only (docs/COST.md, Indexes): the sort key names the operation, and a page that wants more
 * than its id and time reads its rows by key (BatchGetItem, at most five calls for 500).
 *
 * The agent indexes keep one partition per agent (and type): an agent's chain is
 * sequential, far below DynamoDB's 1,000 writes a second per partition.
 */
import { forEachBounded } from '../shared/bounded.js';
import { dynamo } from './clients.js';
import { batchGetRaw, padMs, table, type Item, type QueryInput } from './dynamo.js';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ledgerKeys, OPS_INDEX_SHARDS } from './ledger-items.js';
import { leafOrder, timePartitions } from './operation-windows.js';

/** What an audit query or an export selects (SPEC.md §4.6: start inclusive, end exclusive, on created_at). */
export interface OperationFilter {
  agentId?: string | undefined;
  operationType?: string | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
}

/** A place in the order: continue strictly after this operation. */
export interface OrderPosition {
  created_at: number;
  operation_id: string;
}

/** Sorts after every `<13 digits>#...` sort key. */
const AFTER_ALL = '~';

interface IndexPlan {
  IndexName: string;
  pk: string;
  sk: string;
  partitions: readonly string[];
}

function indexOf(orgId: string, filter: OperationFilter): IndexPlan {
  const probe = ledgerKeys.auditIndexes(orgId, filter.agentId ?? '', filter.operationType ?? '', 0, '');
  if (filter.agentId !== undefined && filter.operationType !== undefined) {
    return { IndexName: 'ops_by_agent_type', pk: 'oat_pk', sk: 'oat_sk', partitions: [probe.oat_pk] };
  }
  if (filter.agentId !== undefined) return { IndexName: 'ops_by_agent', pk: 'oa_pk', sk: 'oa_sk', partitions: [probe.oa_pk] };
  if (filter.operationType !== undefined) {
    const type = filter.operationType;
    const partitions = Array.from({ length: OPS_INDEX_SHARDS }, (_, shard) => ledgerKeys.typePartition(orgId, type, shard));
    return { IndexName: 'ops_by_type', pk: 'ot_pk', sk: 'ot_sk', partitions };
  }
  return { IndexName: 'gsi2', pk: 'gsi2pk', sk: 'gsi2sk', partitions: timePartitions(orgId) };
}

/**
 * The sort key bounds, both inclusive (BETWEEN). `<ms>` sorts before every `<ms>#...`, so the
 * end bound excludes created_at = end. After a position, `<ms>#<id>#` sorts after that row and
 * before every later one: operation ids are UUIDs of one fixed length, so a larger id differs
 * from the position's before the position's extra `#`.
 */
function bounds(filter: OperationFilter, after: OrderPosition | undefined): { lo: string; hi: string } {
  const start = filter.startTime === undefined ? '0' : padMs(filter.startTime);
  const resume = after === undefined ? undefined : `${padMs(after.created_at)}#${after.operation_id}#`;
  return { lo: resume !== undefined && resume > start ? resume : start, hi: filter.endTime === undefined ? AFTER_ALL : padMs(filter.endTime) };
}

/** The Queries (one per partition, without paging) of the filter's operations after `after`; none when the range is empty. */
function operationRangeQueries(orgId: string, filter: OperationFilter, after?: OrderPosition): { index: IndexPlan; queries: QueryInput[] } {
  const index = indexOf(orgId, filter);
  const { lo, hi } = bounds(filter, after);
  if (lo > hi) return { index, queries: [] };
  const queries = index.partitions.map((partition) => ({
    IndexName: index.IndexName,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lo AND :hi',
    ExpressionAttributeNames: { '#pk': index.pk, '#sk': index.sk },
    ExpressionAttributeValues: { ':pk': partition, ':lo': lo, ':hi': hi },
  }));
  return { index, queries };
}

/** Names every attribute through ExpressionAttributeNames (`action` is a DynamoDB reserved word). */
function projection(attributes: readonly string[], names: Record<string, string>): string {
  return attributes
    .map((attribute, i) => {
      names[`#p${i}`] = attribute;
      return `#p${i}`;
    })
    .join(', ');
}

/** What an index entry says by itself: the operation's place in the order (its sort key `<ms>#<id>`). */
const POSITION_ATTRIBUTES: ReadonlySet<string> = new Set(['created_at', 'operation_id']);

function positionOf(entry: Item, sk: string): OrderPosition {
  const key = String(entry[sk]);
  const hash = key.indexOf('#');
  return { created_at: Number(key.slice(0, hash)), operation_id: key.slice(hash + 1) };
}

/** Up to `count` positions of one partition's Query, in order. */
async function positionsOf(query: QueryInput, sk: string, count: number): Promise<OrderPosition[]> {
  const input = { ...query, ProjectionExpression: '#sk' };
  const found: OrderPosition[] = [];
  let start: Item | undefined;
  do {
    const out = await dynamo().send(new QueryCommand({ TableName: table(), ...input, Limit: count - found.length, ExclusiveStartKey: start }));
    found.push(...(out.Items ?? []).map((entry) => positionOf(entry, sk)));
    start = out.LastEvaluatedKey;
  } while (start !== undefined && found.length < count);
  return found;
}

/**
 * Up to `limit` items of the filter after `after`, in order, with `attributes` projected, and
 * whether more follow. Reads limit + 1 index entries per partition (over several requests
 * when DynamoDB's 1 MB page ends first), never more; then the rows by key, unless the
 * attributes asked for are only the operation's id and time.
 */
export async function operationPage(
  orgId: string,
  filter: OperationFilter,
  options: { limit: number; after?: OrderPosition | undefined; attributes: readonly string[] },
): Promise<{ items: Item[]; more: boolean }> {
  const { index, queries } = operationRangeQueries(orgId, filter, options.after);
  const perPartition = await Promise.all(queries.map((query) => positionsOf(query, index.sk, options.limit + 1)));
  const positions = perPartition.flat().sort((a, b) => leafOrder(a, b));
  const page = positions.slice(0, options.limit);
  const more = positions.length > options.limit;
  if (options.attributes.every((attribute) => POSITION_ATTRIBUTES.has(attribute))) {
    return { items: page.map((position) => Object.fromEntries(options.attributes.map((name) => [name, position[name as keyof OrderPosition]]))), more };
  }
  const names: Record<string, string> = {};
  const rows = await batchGetRaw(
    page.map((position) => ledgerKeys.operation(orgId, position.operation_id)),
    { projection: projection([...new Set([...options.attributes, 'operation_id'])], names), names },
  );
  const byId = new Map(rows.map((row) => [String(row.operation_id), row]));
  const items = page.flatMap((position) => {
    const row = byId.get(position.operation_id);
    if (!row) return [];
    if (!options.attributes.includes('operation_id')) delete row.operation_id;
    return [row];
  });
  return { items, more };
}

/** Concurrent counting requests, and the number of time slices a counted range is cut into. */
const COUNT_CONCURRENCY = 8;
const COUNT_SEGMENTS = 8;
/**
 * Index entries per COUNT request: about one 1 MB page of them anyway, and an explicit limit
 * keeps DynamoDB Local from reading the whole rest of the range for every page.
 */
const COUNT_PAGE_ITEMS = 1_000;

/**
 * How many operations match: `Select: COUNT` on the same key condition as the page, which
 * DynamoDB answers without returning items (it still reads them: 1 MB of index entries per
 * request). A large range is counted as COUNT_SEGMENTS time slices in parallel, so a count
 * over 100,000 operations takes a few sequential requests instead of a hundred.
 */
export async function countOperations(orgId: string, filter: OperationFilter, span?: { first: number; last: number }): Promise<number> {
  const lo = Math.max(filter.startTime ?? 0, span?.first ?? 0);
  const hi = Math.min(filter.endTime ?? Number.MAX_SAFE_INTEGER, span === undefined ? Number.MAX_SAFE_INTEGER : span.last + 1);
  if (span === undefined || hi - lo < COUNT_SEGMENTS) return countRange(orgId, filter);
  const step = Math.ceil((hi - lo) / COUNT_SEGMENTS);
  const slices = Array.from({ length: COUNT_SEGMENTS }, (_, i) => ({
    ...filter,
    // The first and last slices keep the filter's own open ends: nothing outside [lo, hi) matches anyway.
    startTime: i === 0 ? filter.startTime : lo + i * step,
    endTime: i === COUNT_SEGMENTS - 1 ? filter.endTime : Math.min(hi, lo + (i + 1) * step),
  }));
  const counts = new Array<number>(slices.length).fill(0);
  await forEachBounded(slices, COUNT_CONCURRENCY, async (slice, i) => {
    counts[i] = await countRange(orgId, slice);
  });
  return counts.reduce((a, b) => a + b, 0);
}

async function countRange(orgId: string, filter: OperationFilter): Promise<number> {
  const counts = await Promise.all(operationRangeQueries(orgId, filter).queries.map(countQuery));
  return counts.reduce((a, b) => a + b, 0);
}

async function countQuery(query: QueryInput): Promise<number> {
  let count = 0;
  let start: Item | undefined;
  do {
    const out = await dynamo().send(new QueryCommand({ TableName: table(), ...query, Select: 'COUNT', Limit: COUNT_PAGE_ITEMS, ExclusiveStartKey: start }));
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start !== undefined);
  return count;
}

/** The created_at of the filter's last operation (newest first, one item), for splitting a count. */
export async function lastCreatedAt(orgId: string, filter: OperationFilter): Promise<number | undefined> {
  const { index, queries } = operationRangeQueries(orgId, filter);
  const lasts = await Promise.all(
    queries.map(async (query) => {
      const out = await dynamo().send(new QueryCommand({ TableName: table(), ...query, ProjectionExpression: '#sk', ScanIndexForward: false, Limit: 1 }));
      const entry = out.Items?.[0];
      return entry === undefined ? undefined : positionOf(entry, index.sk).created_at;
    }),
  );
  const found = lasts.filter((last): last is number => last !== undefined);
  return found.length === 0 ? undefined : Math.max(...found);
}
