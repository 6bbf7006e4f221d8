/**
 * Reading an organization's operations by time (docs/PROTOCOL.md, Merkle epochs: leaves in
 * (created_at, operation_id) order) from the time index gsi2, which is sharded by agent
 * (ledger-items.ts OPS_INDEX_SHARDS). A range is read as shards × time slices, many queries
 * in parallel, then merged: the sealer reads a 100,000-operation window in a few seconds
 * instead of paging through it one megabyte at a time.
 *
 * The index is eventually consistent: the sealer raises its fence and waits
 * LEDGER_EPOCH_SETTLE_MS before reading a window (domain/epochs/seal-organization.ts).
 */
import { forEachBounded } from '../shared/bounded.js';
import { padMs, queryPage, queryPages } from './dynamo.js';
import { ledgerKeys, OPS_INDEX_SHARDS } from './ledger-items.js';

/** One operation as the sealer needs it: enough to order and hash it. */
export interface MemberCandidate {
  operation_id: string;
  created_at: number;
  chain_hash: string;
}

/**
 * A member as the sealer reads it: also who did it and what, for the epoch's counts
 * (domain/epochs/epoch-counts.ts); absent where an index entry lacks them (an index built
 * with a narrower projection), and the epoch then keeps no counts.
 */
export interface WindowOperation extends MemberCandidate {
  agent_id: string | undefined;
  operation_type: string | undefined;
}

/** Queries in flight at once, and the slices a range is cut into per shard. */
export const QUERY_CONCURRENCY = 32;
const SLICES_PER_SHARD = 4;
const PAGE_ITEMS = 2_000;

/**
 * The partitions holding an organization's operations: its shards. Every release has indexed
 * operations by shard (releases.json: the first, 0.1.0, already did), so no table of a release
 * holds an unsharded partition to read.
 */
export function timePartitions(orgId: string): string[] {
  return Array.from({ length: OPS_INDEX_SHARDS }, (_, shard) => ledgerKeys.orgTimePartition(orgId, shard));
}

function rangeQuery(partition: string, from: number, to: number) {
  return {
    IndexName: 'gsi2',
    // `<to 13 digits>` sorts before every key of an operation created at `to` or later.
    KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk BETWEEN :lo AND :hi',
    ExpressionAttributeValues: { ':pk': partition, ':lo': padMs(from), ':hi': padMs(to) },
    ProjectionExpression: 'operation_id, created_at, chain_hash, agent_id, operation_type',
  };
}

/** What orders operations: docs/PROTOCOL.md's leaf order. */
type OrderedOperation = Pick<MemberCandidate, 'created_at' | 'operation_id'>;

/** docs/PROTOCOL.md: leaves are ordered by (created_at, operation_id) ascending. */
export function leafOrder(a: OrderedOperation, b: OrderedOperation): number {
  if (a.created_at !== b.created_at) return a.created_at - b.created_at;
  return a.operation_id < b.operation_id ? -1 : a.operation_id > b.operation_id ? 1 : 0;
}

/** Every operation of the organization with from <= created_at < to, in leaf order. */
export async function operationsInRange(orgId: string, from: number, to: number): Promise<WindowOperation[]> {
  if (to <= from) return [];
  const slices = Math.max(1, Math.min(SLICES_PER_SHARD, to - from));
  const step = Math.ceil((to - from) / slices);
  const queries = timePartitions(orgId).flatMap((partition) =>
    Array.from({ length: slices }, (_, i) => ({ partition, from: from + i * step, to: Math.min(to, from + (i + 1) * step) })),
  );
  const found: WindowOperation[] = [];
  await forEachBounded(queries, QUERY_CONCURRENCY, async (query) => {
    for await (const page of queryPages({ ...rangeQuery(query.partition, query.from, query.to), Limit: PAGE_ITEMS })) {
      for (const item of page) {
        found.push({
          operation_id: String(item.operation_id),
          created_at: Number(item.created_at),
          chain_hash: String(item.chain_hash),
          agent_id: typeof item.agent_id === 'string' ? item.agent_id : undefined,
          operation_type: typeof item.operation_type === 'string' ? item.operation_type : undefined,
        });
      }
    }
  });
  return found.sort(leafOrder);
}

/** created_at of the organization's first operation before `before`, if any (one small read per partition). */
export async function firstOperationBefore(orgId: string, before: number): Promise<number | undefined> {
  const firsts = await Promise.all(
    timePartitions(orgId).map(async (partition) => (await queryPage({ ...rangeQuery(partition, 0, before), Limit: 1 }))[0]),
  );
  const times = firsts.filter((item) => item !== undefined).map((item) => Number(item!.created_at));
  return times.length > 0 ? Math.min(...times) : undefined;
}
