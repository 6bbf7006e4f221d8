/**
 * The envelope receipt keys (adapters/aws/envelope-signer.ts), one item per generation under
 * one partition: the public half, its kid and the seed encrypted under the wrapping KMS key.
 * An item is written once, by the first signing function that finds its generation missing,
 * and never changed but to add a missing attestation: a second writer's conditional put fails
 * and it reads the first one's. No other function may write the partition (lib/grants.ts).
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { RECEIPT_KEYS_PARTITION, type ReceiptKeyStore, type StoredReceiptKey } from '../shared/receipt-keys.js';
import { dynamo } from './clients.js';
import { isConditionFailure, table } from './dynamo.js';

/** Generations sort as numbers: zero-padded to the largest count anyone will rotate to. */
const keyOf = (generation: number) => ({ pk: RECEIPT_KEYS_PARTITION, sk: `GEN#${String(generation).padStart(6, '0')}` });

function fromItem(item: Record<string, unknown>): StoredReceiptKey {
  return {
    generation: item.generation as number,
    kid: item.kid as string,
    x: item.x as string,
    ciphertext: item.ciphertext as Uint8Array,
    createdAt: item.created_at as number,
    ...(item.attestation instanceof Uint8Array ? { attestation: item.attestation } : {}),
  };
}

function toItem(key: StoredReceiptKey): Record<string, unknown> {
  return {
    ...keyOf(key.generation),
    generation: key.generation,
    kid: key.kid,
    x: key.x,
    ciphertext: key.ciphertext,
    created_at: key.createdAt,
    ...(key.attestation ? { attestation: key.attestation } : {}),
  };
}

export const receiptKeyStore: ReceiptKeyStore = {
  async get(generation) {
    // Strongly consistent: a function that lost the race to create the item reads the winner's at once.
    const out = await dynamo().send(new GetCommand({ TableName: table(), Key: keyOf(generation), ConsistentRead: true }));
    return out.Item ? fromItem(out.Item) : undefined;
  },

  async create(key) {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: table(),
          Item: toItem(key),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  },

  async attest(key, attestation) {
    // A put, not an update: the signing functions may only put in this partition (lib/grants.ts).
    try {
      await dynamo().send(
        new PutCommand({
          TableName: table(),
          Item: toItem({ ...key, attestation }),
          ConditionExpression: 'x = :x AND kid = :kid AND ciphertext = :ciphertext',
          ExpressionAttributeValues: { ':x': key.x, ':kid': key.kid, ':ciphertext': key.ciphertext },
        }),
      );
    } catch (error) {
      // Changed meanwhile: the next opening of the generation sees what is there now.
      if (!isConditionFailure(error)) throw error;
    }
  },

  async list() {
    const keys: StoredReceiptKey[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await dynamo().send(
        new QueryCommand({
          TableName: table(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': RECEIPT_KEYS_PARTITION },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) keys.push(fromItem(item));
      start = out.LastEvaluatedKey;
    } while (start);
    return keys;
  },
};
