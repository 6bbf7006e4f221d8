/**
 * Fixed-window counters in the table, shared by every Lambda instance (a counter in process
 * memory would count per instance, not per organization). One UpdateItem with ADD per count: it is atomic, needs no read first
 * and never fails on contention. The request rate reserves a batch of requests per write
 * (domain/rate-limit/request-rate.ts), so the hot path pays a fraction of a write. A reservation is the
 * same write with a condition (at most N per window, decided before the work it guards).
 * Counter items carry a DynamoDB TTL and vanish shortly after their window.
 *
 * | counter            | pk                              | sk                    |
 * |--------------------|---------------------------------|-----------------------|
 * | request rate       | ORG#<org_id>#RATE (or USER#…)   | <window start, ms>    |
 * | sign-in failures   | SIGNIN#<sha256 of email>        | <window start, ms>    |
 * | verification mails | VERIFYMAIL#<sha256 of email>    | <window start, ms>    |
 * | per client address | CLIENT#<action>#<sha256 of ip>  | <window start, ms>    |
 * | new keys of a member | ORG#<org_id>#NEWKEYS#<user_id> | <day start, ms>       |
 * | kept attempts of an agent | ORG#<org_id>#ATTEMPTS#<agent_id> | <day start, ms> |
 * | kept attempts of an org | ORG#<org_id>#ATTEMPTS          | <day start, ms>       |
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients.js';
import { table, writeIfCondition } from './dynamo.js';

export interface CounterKey {
  pk: string;
  sk: string;
}

export const counterKeys = {
  requestRate: (bucket: string, windowStart: number): CounterKey => ({ pk: `${bucket}#RATE`, sk: String(windowStart) }),
  signInFailures: (emailHash: string, windowStart: number): CounterKey => ({ pk: `SIGNIN#${emailHash}`, sk: String(windowStart) }),
  verificationMails: (emailHash: string, windowStart: number): CounterKey => ({ pk: `VERIFYMAIL#${emailHash}`, sk: String(windowStart) }),
  clientAddress: (action: string, addressHash: string, windowStart: number): CounterKey => ({ pk: `CLIENT#${action}#${addressHash}`, sk: String(windowStart) }),
  newKeys: (orgId: string, userId: string, windowStart: number): CounterKey => ({ pk: `ORG#${orgId}#NEWKEYS#${userId}`, sk: String(windowStart) }),
  agentAttempts: (orgId: string, agentId: string, windowStart: number): CounterKey => ({ pk: `ORG#${orgId}#ATTEMPTS#${agentId}`, sk: String(windowStart) }),
  orgAttempts: (orgId: string, windowStart: number): CounterKey => ({ pk: `ORG#${orgId}#ATTEMPTS`, sk: String(windowStart) }),
};

/**
 * Adds `amount` (default one) to each named attribute of a counter item and returns their new
 * values. `expiresAtS` is the TTL (Unix seconds) after which the item may be deleted.
 */
export async function increment(key: CounterKey, attributes: readonly string[], expiresAtS: number, amount = 1): Promise<Record<string, number>> {
  const names = Object.fromEntries(attributes.map((name, index) => [`#a${index}`, name]));
  const result = await dynamo().send(
    new UpdateCommand({
      TableName: table(),
      Key: key,
      UpdateExpression: `ADD ${attributes.map((_, index) => `#a${index} :one`).join(', ')} SET expires_at_s = :ttl`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':one': amount, ':ttl': expiresAtS },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const values = result.Attributes ?? {};
  return Object.fromEntries(attributes.map((name) => [name, Number(values[name] ?? 0)]));
}

/**
 * Adds `amount` (default one) to `attribute` only while the sum stays within `limit`, in one
 * conditional write: true when this call got its `amount` of the `limit` slots, false when
 * not enough were left. Concurrent callers are serialized by the condition, so at most
 * `limit` slots are ever taken per counter.
 */
export async function reserve(key: CounterKey, attribute: string, limit: number, expiresAtS: number, amount = 1): Promise<boolean> {
  return writeIfCondition(() =>
    dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'ADD #a :one SET expires_at_s = :ttl',
        ConditionExpression: 'attribute_not_exists(#a) OR #a <= :most',
        ExpressionAttributeNames: { '#a': attribute },
        ExpressionAttributeValues: { ':one': amount, ':ttl': expiresAtS, ':most': limit - amount },
      }),
    ),
  );
}

/** Gives back `amount` (default one) slots taken by {@link reserve} (never below zero). */
export async function release(key: CounterKey, attribute: string, amount = 1): Promise<void> {
  await writeIfCondition(() =>
    dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'ADD #a :minus',
        ConditionExpression: '#a >= :amount',
        ExpressionAttributeNames: { '#a': attribute },
        ExpressionAttributeValues: { ':minus': -amount, ':amount': amount },
      }),
    ),
  );
}
