/**
 * How far an organization is sealed (docs/PROTOCOL.md, Merkle epochs; docs/STORAGE.md): pk
 * `ORG#<org>#SEALER`, sk `STATE`, next to the sealer's lease (epoch-lease.ts).
 *
 * `sealed_until`: every window ending at or before it is sealed (has its epoch, or had no
 * operations). Only the sealer holding the organization's lease writes it, after the epochs
 * of the windows below it are committed, so a crash before that only means the next run
 * seals the same windows again (deterministic epoch ids, conditional creates).
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients.js';
import { getItem, table } from './dynamo.js';

const stateKey = (orgId: string) => ({ pk: `ORG#${orgId}#SEALER`, sk: 'STATE' });

export async function sealedUntil(orgId: string): Promise<number | undefined> {
  return (await getItem<{ sealed_until: number }>(stateKey(orgId)))?.sealed_until;
}

export async function recordSealedUntil(orgId: string, until: number): Promise<void> {
  await dynamo().send(
    new PutCommand({
      TableName: table(),
      Item: { ...stateKey(orgId), type: 'sealer_state', org_id: orgId, sealed_until: until },
      // Never backwards, whatever a slower run with an older view writes.
      ConditionExpression: 'attribute_not_exists(sealed_until) OR sealed_until < :until',
      ExpressionAttributeValues: { ':until': until },
    }),
  ).catch((error: Error) => {
    if (error.name !== 'ConditionalCheckFailedException') throw error;
  });
}
