/**
 * An organization's operations in (created_at, operation_id) order, filtered by agent and/or
 * operation type and by a time range: the audit query (SPEC.md §4.6) and the exports
 * (SPEC.md §4.8) read through here. Every combination of filters is one Query on one index
 * whose partition holds exactly the matching operations, with the time range on its sort
 * key (`<created_at 13 digits>#<operation_id>`):
 *
 * | filter         | index             | partition                                 |
 * |----------------|-------------------|-------------------------------------------|
 * | none           | gsi2              | ORG#<org>#OPS                             |
 * | agent          | ops_by_agent      | ORG#<org>#AGENT#<agent>#OPS               |
 * | type           | ops_by_type       | ORG#<org>#TYPE#<type>                     |
 * | agent and type | ops_by_agent_type | ORG#<org>#AGENT#<agent>#TYPE#<type>       |
 *
 * No FilterExpression anywhere: a page reads only rows it returns, and a count reads only
 * the matching index entries.
 *
 * Hot partitions: each index keeps one partition per organization (and filter value), not
 * write-sharded. An index entry is one stored row (about 1 KB), so one organization can
 * write about 1,000 operations/s into a partition (DynamoDB's per-partition limit), ten
 * times the default request rate limit (LEDGER_RATE_LIMIT_RPS). Sharding would turn every
 * page into a merge of N queries and every count into N counts; ledgerKeys.auditIndexes is
 * the one place to change if an organization ever needs more.
 */
import { forEachBounded } from '../shared/bounded.js';
import { dynamo } from './clients.js';
import { padMs, table, type Item, type QueryInput } from './dynamo.js';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ledgerKeys } from './ledger-items.js';

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

function indexOf(orgId: string, filter: OperationFilter): { IndexName: string; pk: string; sk: string; partition: string } {
  const probe = ledgerKeys.auditIndexes(orgId, filter.agentId ?? '', filter.operationType ?? '', 0, '');
  if (filter.agentId !== undefined && filter.operationType !== undefined) {
    return { IndexName: 'ops_by_agent_type', pk: 'oat_pk', sk: 'oat_sk', partition: probe.oat_pk };
  }
  if (filter.agentId !== undefined) return { IndexName: 'ops_by_agent', pk: 'oa_pk', sk: 'oa_sk', partition: probe.oa_pk };
  if (filter.operationType !== undefined) return { IndexName: 'ops_by_type', pk: 'ot_pk', sk: 'ot_sk', partition: probe.ot_pk };
  return { IndexName: 'gsi2', pk: 'gsi2pk', sk: 'gsi2sk', partition: ledgerKeys.orgTimeIndex(orgId, 0, '').gsi2pk };
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

/** The Query (without paging) of the filter's operations after `after`; undefined when the range is empty. */
export function operationRangeQuery(orgId: string, filter: OperationFilter, after?: OrderPosition): QueryInput | undefined {
  const index = indexOf(orgId, filter);
  const { lo, hi } = bounds(filter, after);
  if (lo > hi) return undefined;
  return {
    IndexName: index.IndexName,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lo AND :hi',
    ExpressionAttributeNames: { '#pk': index.pk, '#sk': index.sk },
    ExpressionAttributeValues: { ':pk': index.partition, ':lo': lo, ':hi': hi },
  };
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

/**
 * Up to `limit` items of the filter after `after`, in order, with `attributes` projected, and
 * whether more follow. Reads limit + 1 items (over several requests when DynamoDB's 1 MB page
 * ends first), never more.
 */
export async function operationPage(
  orgId: string,
  filter: OperationFilter,
  options: { limit: number; after?: OrderPosition | undefined; attributes: readonly string[] },
): Promise<{ items: Item[]; more: boolean }> {
  const query = operationRangeQuery(orgId, filter, options.after);
  if (query === undefined) return { items: [], more: false };
  const names = { ...query.ExpressionAttributeNames };
  const input = { ...query, ExpressionAttributeNames: names, ProjectionExpression: projection(options.attributes, names) };
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const out = await dynamo().send(
      new QueryCommand({ TableName: table(), ...input, Limit: options.limit + 1 - items.length, ExclusiveStartKey: start }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start !== undefined && items.length <= options.limit);
  return { items: items.slice(0, options.limit), more: items.length > options.limit };
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
  const query = operationRangeQuery(orgId, filter);
  if (query === undefined) return 0;
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
  const query = operationRangeQuery(orgId, filter);
  if (query === undefined) return undefined;
  const names = { ...query.ExpressionAttributeNames, '#c': 'created_at' };
  const out = await dynamo().send(
    new QueryCommand({ TableName: table(), ...query, ExpressionAttributeNames: names, ProjectionExpression: '#c', ScanIndexForward: false, Limit: 1 }),
  );
  const item = out.Items?.[0];
  return item === undefined ? undefined : Number(item.created_at);
}
