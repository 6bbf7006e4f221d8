/**
 * Fixed-window counters in the table, shared by every Lambda instance (a counter in process
 * memory would count per instance, not per organization). One UpdateItem with ADD per count: it is
 * atomic, needs no read first and never fails on contention, so the hot path pays a single
 * write. Counter items carry a DynamoDB TTL and vanish shortly after their window.
 *
 * | counter            | pk                              | sk                    |
 * |--------------------|---------------------------------|-----------------------|
 * | request rate       | ORG#<org_id>#RATE (or USER#…)   | <window start, ms>    |
 * | sign-in failures   | SIGNIN#<sha256 of email>        | <window start, ms>    |
 * | verification mails | VERIFYMAIL#<sha256 of email>    | <window start, ms>    |
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients.js';
import { deleteItem, getItem, table } from './dynamo.js';

export interface CounterKey {
  pk: string;
  sk: string;
}

export const counterKeys = {
  requestRate: (bucket: string, windowStart: number): CounterKey => ({ pk: `${bucket}#RATE`, sk: String(windowStart) }),
  signInFailures: (emailHash: string, windowStart: number): CounterKey => ({ pk: `SIGNIN#${emailHash}`, sk: String(windowStart) }),
  verificationMails: (emailHash: string, windowStart: number): CounterKey => ({ pk: `VERIFYMAIL#${emailHash}`, sk: String(windowStart) }),
};

/**
 * Adds one to each named attribute of a counter item and returns their new values.
 * `expiresAtS` is the TTL (Unix seconds) after which the item may be deleted.
 */
export async function increment(key: CounterKey, attributes: readonly string[], expiresAtS: number): Promise<Record<string, number>> {
  const names = Object.fromEntries(attributes.map((name, index) => [`#a${index}`, name]));
  const result = await dynamo().send(
    new UpdateCommand({
      TableName: table(),
      Key: key,
      UpdateExpression: `ADD ${attributes.map((_, index) => `#a${index} :one`).join(', ')} SET expires_at_s = :ttl`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':one': 1, ':ttl': expiresAtS },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const values = result.Attributes ?? {};
  return Object.fromEntries(attributes.map((name) => [name, Number(values[name] ?? 0)]));
}

export async function read(key: CounterKey, attribute: string): Promise<number> {
  return Number((await getItem<Record<string, unknown>>(key))?.[attribute] ?? 0);
}

export const clear = (key: CounterKey) => deleteItem(key);
