/**
 * The DynamoDB helpers every store module shares: the table name, point reads, paginated
 * queries, batch reads, the transaction runner with its cancellation reasons, DynamoDB's
 * batch limits and the sortable number formats of sort keys. One copy of each, so a fix to
 * pagination or to the cancellation mapping applies to every item type at once.
 *
 * Transactions surface their cancellation reasons as data (docs/ARCHITECTURE.md, "Adapters translate":
 * a cancelled transaction becomes a domain error from its reasons). Any other failure
 * (throttling after the SDK's retries, network, validation) is thrown unchanged and ends as
 * INTERNAL_ERROR, with nothing written: a transaction is all or nothing.
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  type BatchGetCommandOutput,
  QueryCommand,
  TransactWriteCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';
import { dynamo } from './clients.js';
import { TABLE_DESIGN } from './table-design.js';

/** The service's one table (docs/ARCHITECTURE.md, Data). */
export const table = (): string => config().tableName;

export type Key = { pk: string; sk: string };
export type Item = Record<string, unknown>;
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limit of items per TransactWriteItems. */
export const MAX_TRANSACTION_ITEMS = 100;
/** DynamoDB's limit of keys per BatchGetItem. */
const MAX_BATCH_GET_KEYS = 100;

/** Width of zero-padded Unix ms in sort keys, so that they sort as strings do. */
const MS_WIDTH = 13;

/** A 13-digit, zero-padded Unix ms: sort keys that order as the numbers do. */
export const padMs = (ms: number): string => String(ms).padStart(MS_WIDTH, '0');

/** The table's own attributes, never part of what the store hands out. */
const KEY_ATTRIBUTES = ['pk', 'sk', 'type'] as const;
/** Index attributes; items that carry them drop them too when read (`strip(item, INDEX_ATTRIBUTES)`). */
export const INDEX_ATTRIBUTES: readonly string[] = TABLE_DESIGN.globalIndexes.flatMap((index) => [index.partitionKey, index.sortKey]);

/** Drops the table's key attributes (and `extra` ones) so an item reaches the domain as a plain record. */
export function strip<T>(item: Item, extra: readonly string[] = []): T {
  const copy: Item = { ...item };
  for (const name of KEY_ATTRIBUTES) delete copy[name];
  for (const name of extra) delete copy[name];
  return copy as T;
}

/** A strongly consistent point read, stripped; undefined when there is no item. */
export async function getItem<T>(key: Key, extra: readonly string[] = []): Promise<T | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
  return out.Item ? strip<T>(out.Item, extra) : undefined;
}

/**
 * Deletes an item and returns what it held (raw), or undefined when there was none: the way
 * to use a one-time value (an OAuth state, a code, a token) exactly once, even when two
 * requests race for it.
 */
export async function takeItem<T>(key: Key): Promise<T | undefined> {
  const out = await dynamo().send(new DeleteCommand({ TableName: table(), Key: key, ReturnValues: 'ALL_OLD' }));
  return out.Attributes as T | undefined;
}

export async function deleteItem(key: Key): Promise<void> {
  await dynamo().send(new DeleteCommand({ TableName: table(), Key: key }));
}

export type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>;

/** Every page of a query, one page at a time (a page is at most `Limit` items or 1 MB). */
export async function* queryPages(input: QueryInput): AsyncGenerator<Item[]> {
  let cursor: Item | undefined;
  do {
    const page = await dynamo().send(new QueryCommand({ TableName: table(), ...input, ExclusiveStartKey: cursor }));
    yield page.Items ?? [];
    cursor = page.LastEvaluatedKey;
  } while (cursor);
}

/** Every item of a query, all pages (raw: keys included). */
export async function queryAll(input: QueryInput): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(input)) items.push(...page);
  return items;
}

/** One page of a query: at most `Limit` items, raw. */
export async function queryPage(input: QueryInput): Promise<Item[]> {
  const out = await dynamo().send(new QueryCommand({ TableName: table(), ...input }));
  return out.Items ?? [];
}

/** The strongly consistent query of one partition's items whose sort key starts with `prefix`. */
export const prefixQuery = (pk: string, prefix: string): QueryInput => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
  ConsistentRead: true,
});

/**
 * Strongly consistent point reads of many keys (BatchGetItem, MAX_BATCH_GET_KEYS a call).
 * Keys DynamoDB leaves unprocessed (throttling) are asked for again with a growing pause.
 * Raw items, in no particular order.
 */
export async function batchGetRaw(keys: readonly Item[], options: { projection?: string; names?: Record<string, string> } = {}): Promise<Item[]> {
  const chunks: Item[][] = [];
  for (let start = 0; start < keys.length; start += MAX_BATCH_GET_KEYS) chunks.push(keys.slice(start, start + MAX_BATCH_GET_KEYS));
  // The calls of one read go out together: a 500-row page is one round trip, not five.
  return (await Promise.all(chunks.map((chunk) => batchGetChunk(chunk, options)))).flat();
}

async function batchGetChunk(keys: Item[], options: { projection?: string; names?: Record<string, string> }): Promise<Item[]> {
  const found: Item[] = [];
  let pending: Item[] | undefined = keys;
  for (let attempt = 0; pending && pending.length > 0; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
    const out: BatchGetCommandOutput = await dynamo().send(
      new BatchGetCommand({
        RequestItems: {
          [table()]: {
            Keys: pending,
            ConsistentRead: true,
            ...(options.projection ? { ProjectionExpression: options.projection } : {}),
            ...(options.names ? { ExpressionAttributeNames: options.names } : {}),
          },
        },
      }),
    );
    found.push(...(out.Responses?.[table()] ?? []));
    pending = out.UnprocessedKeys?.[table()]?.Keys;
  }
  return found;
}

/** Whole items of many keys (`batchGetRaw`), stripped, in no particular order. */
export async function batchGet<T>(keys: readonly Key[]): Promise<T[]> {
  return (await batchGetRaw(keys)).map((item) => strip<T>(item));
}

/** Whole items of many keys (`batchGetRaw`), raw, in the order of `keys`; keys without an item are left out. */
export async function batchGetInOrder(keys: readonly Key[]): Promise<Item[]> {
  const keyOf = (key: Item) => `${String(key.pk)}\n${String(key.sk)}`;
  const byKey = new Map<string, Item>((await batchGetRaw(keys)).map((item) => [keyOf(item), item]));
  return keys.flatMap((key) => {
    const item = byKey.get(keyOf(key));
    return item ? [item] : [];
  });
}

/** Whether `error` is a single write's failed condition (ConditionalCheckFailedException). */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error as Error | undefined)?.name === 'ConditionalCheckFailedException';
}

/** Runs one conditional write: true when it was written, false when its condition failed; other failures are thrown. */
export async function writeIfCondition(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** One item's reason, in request order. `item` is the old item when its condition failed (ALL_OLD). */
interface CancellationReason {
  /** 'None', 'ConditionalCheckFailed', 'TransactionConflict', ... */
  code: string;
  item: Record<string, AttributeValue> | undefined;
}

type TransactResult = { committed: true } | { committed: false; reasons: CancellationReason[] };

export const CONDITION_FAILED = 'ConditionalCheckFailed';
export const TRANSACTION_CONFLICT = 'TransactionConflict';

/** Reasons that describe the data (a condition) or a concurrent writer, not an infrastructure failure. */
const EXPECTED_CODES = new Set(['None', CONDITION_FAILED, TRANSACTION_CONFLICT]);

class UnexpectedCancellationError extends Error {
  constructor(readonly reasons: CancellationReason[]) {
    super(`transaction cancelled: ${reasons.map((reason) => reason.code).join(', ')}`);
    this.name = 'UnexpectedCancellationError';
  }
}

/**
 * Runs one transaction. A fresh ClientRequestToken per call makes the SDK's own retries of a
 * timed-out attempt idempotent: a retry of an attempt that did commit answers success instead
 * of failing its own conditions.
 */
export async function transact(items: TransactItem[]): Promise<TransactResult> {
  if (items.length > MAX_TRANSACTION_ITEMS) throw new Error(`transaction of ${items.length} items exceeds ${MAX_TRANSACTION_ITEMS}`);
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: randomUUID() }));
    return { committed: true };
  } catch (error) {
    if (!isCancellation(error)) throw error;
    const reasons = (error.CancellationReasons ?? []).map((reason) => ({
      code: reason.Code ?? 'None',
      item: reason.Item,
    }));
    if (reasons.length !== items.length || reasons.some((reason) => !EXPECTED_CODES.has(reason.code))) {
      throw new UnexpectedCancellationError(reasons);
    }
    return { committed: false, reasons };
  }
}

function isCancellation(error: unknown): error is TransactionCanceledException {
  return error instanceof TransactionCanceledException || (error as Error | undefined)?.name === 'TransactionCanceledException';
}

/** Reads a string attribute of a raw (unmarshalled-by-nobody) cancellation item. */
export function stringAttribute(item: Record<string, AttributeValue> | undefined, name: string): string | undefined {
  return item?.[name]?.S;
}

export function numberAttribute(item: Record<string, AttributeValue> | undefined, name: string): number | undefined {
  const raw = item?.[name]?.N;
  return raw === undefined ? undefined : Number(raw);
}

/** What an UpdateItem changes: attributes to set, numbers to add, attributes to remove. */
export interface AttributeChanges {
  set?: Record<string, unknown>;
  add?: Record<string, number>;
  remove?: readonly string[];
}

/**
 * The UpdateExpression of `changes`, with every attribute named through
 * ExpressionAttributeNames (`#<field>`: several are DynamoDB reserved words, `status` among
 * them) and values as `:s_<field>` and `:a_<field>`, which conditions must not use.
 */
export function updateExpression(changes: AttributeChanges): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const name = (field: string) => {
    names[`#${field}`] = field;
    return `#${field}`;
  };
  const sets = Object.entries(changes.set ?? {}).map(([field, value]) => {
    values[`:s_${field}`] = value;
    return `${name(field)} = :s_${field}`;
  });
  const adds = Object.entries(changes.add ?? {}).map(([field, value]) => {
    values[`:a_${field}`] = value;
    return `${name(field)} :a_${field}`;
  });
  const removes = (changes.remove ?? []).map(name);
  const clauses = [sets.length ? `SET ${sets.join(', ')}` : '', adds.length ? `ADD ${adds.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''];
  return { expression: clauses.filter(Boolean).join(' '), names, values };
}
