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
import { TtlCache } from '../shared/ttl-cache.js';
import { dynamo } from './clients.js';
import { getItem, table } from './dynamo.js';

const stateKey = (orgId: string) => ({ pk: `ORG#${orgId}#SEALER`, sk: 'STATE' });

export async function sealedUntil(orgId: string): Promise<number | undefined> {
  return (await getItem<{ sealed_until: number }>(stateKey(orgId)))?.sealed_until;
}

/**
 * sealed_until as this process last read or wrote it, for 30 s (1,000 organizations). A count
 * (domain/audit/count-matches.ts) is exact with any value at or below the current one: what
 * lies above it is counted from the index, which only costs more entries read. sealed_until
 * never goes back, so an older value is always such a value, and a warm process saves the
 * read that would otherwise come before every other read of a count.
 */
const recentlySealed = new TtlCache<number>(30_000, 1_000);

/** A sealed_until at most 30 s old (0 when the organization was never sealed): see recentlySealed. */
export async function recentSealedUntil(orgId: string): Promise<number> {
  const cached = recentlySealed.get(orgId);
  if (cached !== undefined) return cached;
  const read = (await sealedUntil(orgId)) ?? 0;
  remember(orgId, read);
  return read;
}

function remember(orgId: string, until: number): void {
  if (until > (recentlySealed.get(orgId) ?? -1)) recentlySealed.set(orgId, until);
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
  // Stored, or already passed by a newer run: either way at or below the stored value.
  remember(orgId, until);
}
