/**
 * The operation rows' side of sealing, over the sparse "unsealed" index gsi3 that the ledger
 * writes with every operation (ledger-items.ts: gsi3pk `UNSEALED#<shard>`, gsi3sk
 * `<org>#<created_at 13 digits>#<operation_id>`, so one organization's unsealed operations
 * are a contiguous, time-ordered range of its shard).
 *
 * The index is eventually consistent both ways: a new row may show up late (the grace period
 * covers the usual lag; a later row is carried into a later epoch), and a row just marked
 * may still show up for a while. The second case is why `stillUnsealed` re-reads rows with
 * strongly consistent reads before the sealer puts a suspicious one into a new epoch.
 */
import { forEachBounded } from '../shared/bounded.js';
import { batchGetRaw, CONDITION_FAILED, MAX_TRANSACTION_ITEMS, padMs, queryPage, queryPages, table, transact, type TransactItem } from './dynamo.js';
import { ledgerKeys, UNSEALED_SHARDS, unsealedShard } from './ledger-items.js';

/** One unsealed operation as the sealer needs it: enough to order, hash and mark it. */
export interface MemberCandidate {
  operation_id: string;
  created_at: number;
  chain_hash: string;
}

/** Marks per transaction (DynamoDB's limit), and how many such transactions run at once. */
const MARK_BATCH = MAX_TRANSACTION_ITEMS;
const MARK_CONCURRENCY = 8;
/** Retries of a batch that concurrent writes to its rows cancelled (TransactionConflict). */
const MARK_ATTEMPTS = 5;
const PAGE_ITEMS = 1_000;

/**
 * One shard's organizations by skipping through the index: a Limit-1 query per organization,
 * restarting just past the organization's key range (`<org>$` sorts right after every
 * `<org>#...` key, since org ids contain no `#`), so a busy organization costs one read.
 */
async function organizationsInShard(shard: number): Promise<string[]> {
  const orgs: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await queryPage({
      IndexName: 'gsi3',
      KeyConditionExpression: after === undefined ? 'gsi3pk = :pk' : 'gsi3pk = :pk AND gsi3sk > :after',
      ExpressionAttributeValues: { ':pk': `UNSEALED#${shard}`, ...(after === undefined ? {} : { ':after': after }) },
      ProjectionExpression: 'org_id',
      Limit: 1,
    });
    const org = page[0]?.org_id as string | undefined;
    if (org === undefined) return orgs;
    orgs.push(org);
    after = `${org}$`;
  }
}

/** Every organization with at least one unsealed operation. */
export async function organizationsWithUnsealed(): Promise<string[]> {
  const shards = Array.from({ length: UNSEALED_SHARDS }, (_, shard) => shard);
  return (await Promise.all(shards.map(organizationsInShard))).flat();
}

function unsealedRange(orgId: string, before: number) {
  return {
    // `<org>#<before>` sorts after every key with a smaller created_at and before every key
    // with created_at >= before (13-digit padding makes string order numeric).
    KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk BETWEEN :lo AND :hi',
    ExpressionAttributeValues: { ':pk': `UNSEALED#${unsealedShard(orgId)}`, ':lo': `${orgId}#`, ':hi': `${orgId}#${padMs(before)}` },
  };
}

/** Whether the organization has an unsealed operation created before `before`: one small read. */
export async function hasUnsealedBefore(orgId: string, before: number): Promise<boolean> {
  const page = await queryPage({ IndexName: 'gsi3', ...unsealedRange(orgId, before), ProjectionExpression: 'pk', Limit: 1 });
  return page.length > 0;
}

/** The organization's unsealed operations created before `before`, in leaf order (index order). */
export async function unsealedOperations(orgId: string, before: number): Promise<MemberCandidate[]> {
  const found: MemberCandidate[] = [];
  const pages = queryPages({
    IndexName: 'gsi3',
    ...unsealedRange(orgId, before),
    ProjectionExpression: 'operation_id, created_at, chain_hash',
    // About a 1 MB page of ledger rows anyway; an explicit limit also keeps DynamoDB Local
    // from reading the whole rest of the range for every page (quadratic on a big epoch).
    Limit: PAGE_ITEMS,
  });
  for await (const page of pages) {
    for (const item of page) {
      found.push({ operation_id: String(item.operation_id), created_at: Number(item.created_at), chain_hash: String(item.chain_hash) });
    }
  }
  return found;
}

/** Of `operationIds`, those whose row exists and carries no epoch_id yet (strongly consistent reads). */
export async function stillUnsealed(orgId: string, operationIds: readonly string[]): Promise<Set<string>> {
  const rows = await batchGetRaw(
    operationIds.map((id) => ledgerKeys.operation(orgId, id)),
    { projection: 'operation_id, epoch_id' },
  );
  return new Set(rows.filter((row) => row.epoch_id === undefined).map((row) => String(row.operation_id)));
}

/** A row missing or already sealed into another epoch: something broke an invariant, sealing must stop. */
export class MembershipConflictError extends Error {
  constructor(readonly operationId: string, readonly epochId: string) {
    super(`operation ${operationId} cannot join epoch ${epochId}: it is missing or in another epoch`);
    this.name = 'MembershipConflictError';
  }
}

interface Mark {
  operation_id: string;
  leaf_index: number;
}

function markUpdate(orgId: string, epochId: string, mark: Mark): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: ledgerKeys.operation(orgId, mark.operation_id),
      UpdateExpression: 'SET epoch_id = :epoch, leaf_index = :index REMOVE gsi3pk, gsi3sk',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(epoch_id) OR epoch_id = :epoch)',
      ExpressionAttributeValues: { ':epoch': epochId, ':index': mark.leaf_index },
    },
  };
}

/** One transaction of marks; retried while only concurrent writers (TransactionConflict) stop it. */
async function markBatch(orgId: string, epochId: string, batch: readonly Mark[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const result = await transact(batch.map((mark) => markUpdate(orgId, epochId, mark)));
    if (result.committed) return;
    const failed = result.reasons.findIndex((reason) => reason.code === CONDITION_FAILED);
    if (failed >= 0) throw new MembershipConflictError(batch[failed]!.operation_id, epochId);
    if (attempt >= MARK_ATTEMPTS) throw new Error(`marking members of epoch ${epochId}: still conflicting after ${attempt + 1} attempts`);
    await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt * (0.5 + Math.random())));
  }
}

/**
 * Marks each member row: epoch_id and leaf_index set, out of the unsealed index.
 *
 * Conditional updates, so a row can join only this epoch, and idempotent (a row marked for
 * this epoch passes the condition again): a re-run after a crash simply marks everything once
 * more. Batched as TransactWriteItems of up to 100 updates, which costs DynamoDB twice the
 * write units of single updates but a hundredth of the requests: marking is the bulk of
 * sealing (one write per operation), and batches keep a 100,000-operation epoch within a run.
 * Atomicity is not what we need here; the condition per item is.
 */
export async function markMembers(orgId: string, epochId: string, members: readonly Mark[]): Promise<void> {
  const batches: Mark[][] = [];
  for (let i = 0; i < members.length; i += MARK_BATCH) batches.push(members.slice(i, i + MARK_BATCH));
  await forEachBounded(batches, MARK_CONCURRENCY, (batch) => markBatch(orgId, epochId, batch));
}
