/**
 * An organization's operations in (created_at, operation_id) order, filtered by agent and/or
 * operation type and by a time range: the audit query (docs/API.md §4.6) and the exports
 * (docs/API.md §4.8) read through here. Every combination of filters is a Query of the index
 * whose partitions hold exactly the matching operations, with the time range on its sort
 * key (`<created_at 13 digits>#<operation_id>`):
 *
 * | filter         | index                            | partitions                                          |
 * |----------------|----------------------------------|-----------------------------------------------------|
 * | none           | ops_by_time (rows), gsi2 (scans) | ORG#<org>#OPS#<shard> (8, by agent)                 |
 * | agent          | ops_by_agent      | ORG#<org>#AGENT#<agent>#OPS                         |
 * | type           | ops_by_type       | ORG#<org>#TYPE#<type>#<shard> (8, by agent)         |
 * | agent and type | ops_by_agent_type | ORG#<org>#AGENT#<agent>#TYPE#<type>                 |
 *
 * No FilterExpression anywhere: a page reads only index entries of rows it may return, and a
 * count reads only matching entries. The organization-wide time index and the type index
 * are sharded by agent, so that no partition takes all of an organization's writes
 * (store/ledger-items.ts): a page reads each shard after the same position and merges them,
 * since the order is one total order. A page without filters reads the stored rows from
 * ops_by_time, which projects them (docs/COST.md, Indexes): one round of Queries, no
 * second read. The filter indexes hold keys only (docs/COST.md, Indexes): the sort key names
 * the operation, and a filtered page that wants more than its id and time reads its rows by
 * key (BatchGetItem, at most five calls for 500). So does an unfiltered page while
 * ops_by_time cannot be read yet (being backfilled after an upgrade, docs/DEPLOY.md Upgrades).
 *
 * The agent indexes keep one partition per agent (and type): an agent's chain is
 * sequential, far below DynamoDB's 1,000 writes a second per partition.
 */
import { forEachBounded } from '../shared/bounded.js';
import { TtlCache } from '../shared/ttl-cache.js';
import { dynamo } from './clients.js';
import { batchGetRaw, padMs, table, type Item, type QueryInput } from './dynamo.js';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { OPS_ROWS_INDEX } from './table-design.js';
import { ledgerKeys, OPS_INDEX_SHARDS } from './ledger-items.js';
import { leafOrder, timePartitions } from './operation-windows.js';

/** What an audit query or an export selects (docs/API.md §4.6: start inclusive, end exclusive, on created_at). */
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
  const probe = ledgerKeys.auditIndexes(orgId, filter.agentId ?? '', filter.operationType ?? '');
  if (filter.agentId !== undefined && filter.operationType !== undefined) {
    return { IndexName: 'ops_by_agent_type', pk: 'oat_pk', sk: 'gsi2sk', partitions: [probe.oat_pk] };
  }
  if (filter.agentId !== undefined) return { IndexName: 'ops_by_agent', pk: 'oa_pk', sk: 'gsi2sk', partitions: [probe.oa_pk] };
  if (filter.operationType !== undefined) {
    const type = filter.operationType;
    const partitions = Array.from({ length: OPS_INDEX_SHARDS }, (_, shard) => ledgerKeys.typePartition(orgId, type, shard));
    return { IndexName: 'ops_by_type', pk: 'ot_pk', sk: 'gsi2sk', partitions };
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

/** The Queries (one per partition, without paging) of the filter's operations after `after`, of `plan` or the filter's index; none when the range is empty. */
function operationRangeQueries(orgId: string, filter: OperationFilter, after?: OrderPosition, plan?: IndexPlan): { index: IndexPlan; queries: QueryInput[] } {
  const index = plan ?? indexOf(orgId, filter);
  const { lo, hi } = bounds(filter, after);
  if (lo > hi) return { index, queries: [] };
  return { index, queries: index.partitions.map((partition) => keyRangeQuery(index, partition, lo, hi)) };
}

/** The Query of one partition's sort keys in [lo, hi] (BETWEEN: both inclusive). */
function keyRangeQuery(index: IndexPlan, partition: string, lo: string, hi: string): QueryInput {
  return {
    IndexName: index.IndexName,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lo AND :hi',
    ExpressionAttributeNames: { '#pk': index.pk, '#sk': index.sk },
    ExpressionAttributeValues: { ':pk': partition, ':lo': lo, ':hi': hi },
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

/** What an index entry says by itself: the operation's place in the order (its sort key `<ms>#<id>`). */
const POSITION_ATTRIBUTES: ReadonlySet<string> = new Set(['created_at', 'operation_id']);

function positionOf(entry: Item, sk: string): OrderPosition {
  const key = String(entry[sk]);
  const hash = key.indexOf('#');
  return { created_at: Number(key.slice(0, hash)), operation_id: key.slice(hash + 1) };
}

/** The index that holds an unfiltered page's rows themselves, when every attribute asked for is projected there; otherwise none. */
function rowsIndexOf(orgId: string, filter: OperationFilter, attributes: readonly string[]): IndexPlan | undefined {
  if (filter.agentId !== undefined || filter.operationType !== undefined) return undefined;
  const projected: ReadonlySet<string> = new Set(OPS_ROWS_INDEX.projection.attributes);
  if (!attributes.every((attribute) => projected.has(attribute))) return undefined;
  return { IndexName: OPS_ROWS_INDEX.name, pk: OPS_ROWS_INDEX.partitionKey, sk: OPS_ROWS_INDEX.sortKey, partitions: timePartitions(orgId) };
}

/**
 * DynamoDB refuses a Query of an index it is still building (backfilling after the deploy that
 * added it) or that the table lacks (a table of an older version): ValidationException naming
 * the index. Only then does a page fall back to the index of positions and a read by key.
 */
function isIndexUnreadable(error: unknown, indexName: string): boolean {
  const { name, message } = (error ?? {}) as { name?: string; message?: string };
  return name === 'ValidationException' && typeof message === 'string' && message.includes(indexName);
}

/**
 * Up to `limit` items of the filter after `after`, in order, with `attributes` projected, and
 * whether more follow: from the index that projects the rows when there is one for the
 * filter; otherwise the positions from the index (OperationScan), then the rows by key,
 * unless the attributes asked for are only the operation's id and time.
 */
export async function operationPage(
  orgId: string,
  filter: OperationFilter,
  options: { limit: number; after?: OrderPosition | undefined; attributes: readonly string[] },
): Promise<{ items: Item[]; more: boolean }> {
  const rowsIndex = rowsIndexOf(orgId, filter, options.attributes);
  if (rowsIndex !== undefined) {
    try {
      return await new OperationScan(orgId, filter, options.after, 1, { index: rowsIndex, attributes: options.attributes }).nextRows(options.limit);
    } catch (error) {
      if (!isIndexUnreadable(error, rowsIndex.IndexName)) throw error;
    }
  }
  const { positions: page, more } = await new OperationScan(orgId, filter, options.after).nextPage(options.limit);
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

/** An index entry as a scan reads it: its place in the order, and the attributes read with it (none when only positions are read). */
interface ScanEntry {
  position: OrderPosition;
  item: Item | undefined;
}

/** Where a scan reads rows themselves: an index that projects them, and the attributes wanted. */
interface RowsSource {
  index: IndexPlan;
  attributes: readonly string[];
}

/** One partition of a scan: what was read and not yet taken, and where its Query goes on. */
interface PartitionCursor {
  query: QueryInput;
  /** Read entries; those before `taken` are already merged into a page. */
  buffered: ScanEntry[];
  taken: number;
  start: Item | undefined;
  exhausted: boolean;
}

const available = (partition: PartitionCursor) => partition.buffered.length - partition.taken;

/**
 * How the last page of each sharded index and partition set (an organization's shards) fell
 * over its partitions, in this process, for a few minutes: agents fall unevenly on the shards,
 * and an even first share sends most pages to a second round for the busiest shard. With the
 * spread remembered, the next page of the same listing (the console's operations list, polled
 * while it is open) reads each shard's own share at once. It only sizes the first reads: a
 * shard whose share was too small is read again like any other (nextEntries), so a stale
 * spread costs a round trip, never a row.
 */
const pageSpread = new TtlCache<number[]>(5 * 60_000, 1_000);
/** A page shorter than this says too little about the spread to remember it. */
const SPREAD_SAMPLE = 50;

/**
 * The filter's positions after `after`, in order, a page at a time, merged from the index's
 * partitions. A sharded index spreads a page over its shards, so each shard is first asked
 * for an even share of the page (with headroom), not the whole page: the merged positions
 * are complete up to the lowest last position read from a shard that has more, and only
 * when fewer than a page lie below it are the shards that hold the page back asked for more
 * (twice what each holds, up to a whole page), not every shard. Entries read and not yet
 * returned stay for the next page, so a reader that goes through everything (an export)
 * reads every index entry once; it asks for `readItems` at a time, where a single page (the
 * audit query) asks for no more than it needs.
 */
export class OperationScan {
  private readonly partitions: PartitionCursor[];
  private readonly sk: string;
  private readonly rowAttributes: readonly string[] | undefined;
  /** The index and its partitions: where this scan's pages are spread (pageSpread). */
  private readonly spreadKey: string;

  /** `rows`: read the entries' attributes from an index that projects them, not only their positions. */
  constructor(
    orgId: string,
    filter: OperationFilter,
    after?: OrderPosition,
    private readonly readItems = 1,
    rows?: RowsSource,
  ) {
    const { index, queries } = operationRangeQueries(orgId, filter, after, rows?.index);
    this.sk = index.sk;
    this.rowAttributes = rows?.attributes;
    this.spreadKey = `${index.IndexName}\n${index.partitions.join('\n')}`;
    this.partitions = queries.map((query) => {
      const names = { ...query.ExpressionAttributeNames };
      const read = rows === undefined ? '#sk' : `#sk, ${projection([...new Set([...rows.attributes, 'operation_id'])], names)}`;
      return { query: { ...query, ExpressionAttributeNames: names, ProjectionExpression: read }, buffered: [], taken: 0, start: undefined, exhausted: false };
    });
  }

  /** Up to `size` positions in order, and whether more follow. */
  async nextPage(size: number): Promise<{ positions: OrderPosition[]; more: boolean }> {
    const { entries, more } = await this.nextEntries(size);
    return { positions: entries.map((entry) => entry.position), more };
  }

  /** Up to `size` items in order, each with the attributes the scan was built to read, and whether more follow. */
  async nextRows(size: number): Promise<{ items: Item[]; more: boolean }> {
    const { entries, more } = await this.nextEntries(size);
    const wanted = new Set(this.rowAttributes);
    const items = entries.map(({ item }) => Object.fromEntries(Object.entries(item ?? {}).filter(([name]) => wanted.has(name))));
    return { items, more };
  }

  private async nextEntries(size: number): Promise<{ entries: ScanEntry[]; more: boolean }> {
    const page = size + 1;
    const share = Math.min(page, Math.ceil((1.25 * page) / Math.max(1, this.partitions.length)) + 1);
    // The first read of each partition: its part of the last page of this index and partitions
    // this process served, when there was one, with the same headroom; an even share otherwise.
    const spread = this.partitions.length > 1 ? pageSpread.get(this.spreadKey) : undefined;
    const firstRead = (i: number) => (spread === undefined ? share : Math.min(page, Math.ceil(1.25 * page * (spread[i] ?? 0)) + 1));
    await Promise.all(this.partitions.map((partition, i) => this.fill(partition, firstRead(i))));
    for (;;) {
      const bound = this.completeUpTo();
      const below = this.partitions.reduce((sum, partition) => sum + this.countUpTo(partition, bound), 0);
      if (below > size || bound === undefined) return this.take(size, bound);
      // Fewer than a page lies below the bound. Agents are not spread evenly over the shards, so
      // only the partitions read to a place before the page's end as read so far need more: each
      // reads twice what it holds. The partition holding the bound is always one of them (all its
      // entries lie below the bound, so it holds at most `size`), so every round gets further.
      const end = this.nthAvailable(page);
      const short = this.partitions.filter((partition) => {
        const last = partition.buffered.at(-1)?.position;
        return !partition.exhausted && (end === undefined || last === undefined || leafOrder(last, end) < 0);
      });
      await Promise.all(short.map((partition) => this.fill(partition, Math.min(page, Math.max(share, 2 * available(partition))))));
    }
  }

  /** The position of the `n`th entry read and not yet taken, over all partitions in order; undefined when fewer are read. */
  private nthAvailable(n: number): OrderPosition | undefined {
    const positions = this.partitions.flatMap((partition) => partition.buffered.slice(partition.taken).map((entry) => entry.position));
    if (positions.length < n) return undefined;
    return positions.sort(leafOrder)[n - 1];
  }

  /** The lowest last position read from a partition that has more; undefined when every partition is read to its end. */
  private completeUpTo(): OrderPosition | undefined {
    let bound: OrderPosition | undefined;
    for (const partition of this.partitions) {
      const last = partition.buffered.at(-1)?.position;
      if (!partition.exhausted && last !== undefined && (bound === undefined || leafOrder(last, bound) < 0)) bound = last;
    }
    return bound;
  }

  private countUpTo(partition: PartitionCursor, bound: OrderPosition | undefined): number {
    if (bound === undefined) return available(partition);
    let n = 0;
    for (let i = partition.taken; i < partition.buffered.length && leafOrder(partition.buffered[i]!.position, bound) <= 0; i++) n++;
    return n;
  }

  /** Merges up to `size` entries, none past `bound`. */
  private take(size: number, bound: OrderPosition | undefined): { entries: ScanEntry[]; more: boolean } {
    const entries: ScanEntry[] = [];
    const taken = this.partitions.map(() => 0);
    while (entries.length < size) {
      let next = -1;
      let nextHead: ScanEntry | undefined;
      for (let i = 0; i < this.partitions.length; i++) {
        const partition = this.partitions[i]!;
        const head = partition.buffered[partition.taken];
        if (head !== undefined && (nextHead === undefined || leafOrder(head.position, nextHead.position) < 0)) [next, nextHead] = [i, head];
      }
      if (next < 0 || nextHead === undefined || (bound !== undefined && leafOrder(nextHead.position, bound) > 0)) break;
      entries.push(nextHead);
      this.partitions[next]!.taken += 1;
      taken[next]! += 1;
    }
    if (this.partitions.length > 1 && entries.length >= SPREAD_SAMPLE) pageSpread.set(this.spreadKey, taken.map((n) => n / entries.length));
    return { entries, more: this.partitions.some((partition) => available(partition) > 0 || !partition.exhausted) };
  }

  /** Reads until the partition has `want` entries not yet taken, or has none left. */
  private async fill(partition: PartitionCursor, want: number): Promise<void> {
    if (partition.exhausted || available(partition) >= want) return;
    partition.buffered = partition.buffered.slice(partition.taken);
    partition.taken = 0;
    while (!partition.exhausted && partition.buffered.length < want) {
      const out = await dynamo().send(
        new QueryCommand({
          TableName: table(),
          ...partition.query,
          Limit: Math.max(want - partition.buffered.length, this.readItems),
          ExclusiveStartKey: partition.start,
        }),
      );
      const rows = this.rowAttributes !== undefined;
      partition.buffered.push(...(out.Items ?? []).map((entry) => ({ position: positionOf(entry, this.sk), item: rows ? entry : undefined })));
      partition.start = out.LastEvaluatedKey;
      partition.exhausted = partition.start === undefined;
    }
  }
}

/** Concurrent counting requests, and the number of time slices the rest of a large partition is cut into. */
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
 * request). Every partition is counted with one request first, which counts a small range
 * whole; a partition with more is counted on in COUNT_SEGMENTS time slices in parallel, from
 * where that request stopped to the end of the range, so a count over 100,000 operations
 * takes a few sequential requests instead of a hundred.
 */
export async function countOperations(orgId: string, filter: OperationFilter): Promise<number> {
  const { index, queries } = operationRangeQueries(orgId, filter);
  const firsts = await Promise.all(queries.map((query) => countRequest(query, undefined)));
  const hi = bounds(filter, undefined).hi;
  // No operation is created in the future (created_at is the accepting server's clock): slice up to now at most.
  const end = Math.min(filter.endTime ?? Number.MAX_SAFE_INTEGER, Date.now() + 1);
  const rest = firsts.flatMap(({ next }, i) => {
    if (next === undefined) return [];
    const partition = String(queries[i]!.ExpressionAttributeValues![':pk']);
    const after = positionOf(next, index.sk);
    const step = Math.max(1, Math.ceil((end - after.created_at) / COUNT_SEGMENTS));
    const cuts = Array.from({ length: COUNT_SEGMENTS - 1 }, (_, k) => after.created_at + (k + 1) * step).filter((cut) => cut < end);
    // `<ms>` as an upper bound sorts before every key at ms, as a lower bound before each of them: the slices meet without overlap.
    const los = [`${padMs(after.created_at)}#${after.operation_id}#`, ...cuts.map(padMs)];
    const his = [...cuts.map(padMs), hi];
    return los.map((lo, k) => keyRangeQuery(index, partition, lo, his[k]!));
  });
  const counts = firsts.map(({ count }) => count);
  await forEachBounded(rest, COUNT_CONCURRENCY, async (query) => {
    counts.push(await countQuery(query));
  });
  return counts.reduce((a, b) => a + b, 0);
}

/** One COUNT request: how many it counted, and where the Query goes on when there is more. */
async function countRequest(query: QueryInput, start: Item | undefined): Promise<{ count: number; next: Item | undefined }> {
  const out = await dynamo().send(new QueryCommand({ TableName: table(), ...query, Select: 'COUNT', Limit: COUNT_PAGE_ITEMS, ExclusiveStartKey: start }));
  return { count: out.Count ?? 0, next: out.LastEvaluatedKey };
}

async function countQuery(query: QueryInput): Promise<number> {
  let count = 0;
  let start: Item | undefined;
  do {
    const page = await countRequest(query, start);
    count += page.count;
    start = page.next;
  } while (start !== undefined);
  return count;
}
