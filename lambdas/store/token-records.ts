/**
 * API token records (identity-items.ts layout): an API token's public facts in its
 * organization's partition, so tokens can be listed by organization and revoked by id
 * (docs/API.md §4.1) although the token item itself is keyed by the token's hash. Each change
 * to a token's end writes its token item and its record in one transaction.
 *
 * Last use is kept in a separate small item per token (`TOKENUSE#<token_id>`), the only kind
 * of item every route may write (lib/grants.ts `table:token-use`): a read-only route records
 * the use of the token it was called with and can change nothing else, least of all a
 * token's end.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients.js';
import { identityKeys, TOKEN_USE_PREFIX, type TokenRecordItem } from './identity-items.js';
import { batchGetRaw, getItem, INDEX_ATTRIBUTES, isConditionFailure, strip, table, type TransactItem } from './dynamo.js';
import type { NewToken } from './tokens.js';

export function tokenRecordPut(minted: NewToken, replaces?: string): TransactItem {
  const { item, hash } = minted;
  const orgId = item.org_id as string;
  const record: TokenRecordItem = {
    token_id: item.token_id,
    org_id: orgId,
    user_id: item.user_id,
    name: item.name ?? null,
    created_at: item.created_at,
    expires_at: item.expires_at,
    token_hash: hash,
    ...(replaces === undefined ? {} : { replaces }),
    ...(item.expires_at_s === undefined ? {} : { expires_at_s: item.expires_at_s }),
  };
  return {
    Put: {
      TableName: table(),
      Item: {
        ...identityKeys.tokenRecord(orgId, item.token_id),
        type: 'token_record',
        gsi1pk: identityKeys.orgTokens(orgId),
        gsi1sk: identityKeys.tokenOrder(item.created_at, item.token_id),
        ...record,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

interface TokenEnd {
  /** When the token stops working (ms). */
  graceUntil: number;
  /** DynamoDB TTL (s) of the record, as its token item's. */
  removalAt: number | undefined;
  replacedBy?: string;
  revokedBy?: string;
}

/** Mirrors a token item's end on its record (same transaction as the token item's change). */
export function tokenRecordEnd(orgId: string, tokenId: string, now: number, end: TokenEnd): TransactItem {
  const sets = ['revoked_at = if_not_exists(revoked_at, :now)', 'grace_until = :grace'];
  const values: Record<string, unknown> = { ':now': now, ':grace': end.graceUntil };
  if (end.removalAt !== undefined) {
    sets.push('expires_at_s = :ttl');
    values[':ttl'] = end.removalAt;
  }
  if (end.replacedBy !== undefined) {
    sets.push('replaced_by = :by');
    values[':by'] = end.replacedBy;
  }
  if (end.revokedBy !== undefined) {
    sets.push('revoked_by = :revoker');
    values[':revoker'] = end.revokedBy;
  }
  return {
    Update: {
      TableName: table(),
      Key: identityKeys.tokenRecord(orgId, tokenId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: values,
    },
  };
}

export const getTokenRecord = (orgId: string, tokenId: string) => getItem<TokenRecordItem>(identityKeys.tokenRecord(orgId, tokenId), INDEX_ATTRIBUTES);

interface TokenRecordPage {
  records: TokenRecordItem[];
  /** The sort key of the last record returned when more may follow (the next page starts after it). */
  after: string | null;
}

/** One page of an organization's token records, newest first; `userId` keeps one member's. */
export async function listTokenRecords(
  orgId: string,
  options: { limit: number; after?: string | undefined; userId?: string | undefined },
): Promise<TokenRecordPage> {
  const records: TokenRecordItem[] = [];
  let after = options.after;
  // A member's filter can leave a page short: read on until it is full or the partition ends.
  for (;;) {
    const out = await dynamo().send(
      new QueryCommand({
        TableName: table(),
        IndexName: 'gsi1',
        KeyConditionExpression: after === undefined ? 'gsi1pk = :pk' : 'gsi1pk = :pk AND gsi1sk < :after',
        ExpressionAttributeValues: {
          ':pk': identityKeys.orgTokens(orgId),
          ...(after === undefined ? {} : { ':after': after }),
          ...(options.userId === undefined ? {} : { ':user': options.userId }),
        },
        ...(options.userId === undefined ? {} : { FilterExpression: 'user_id = :user' }),
        ScanIndexForward: false,
        Limit: options.limit - records.length,
      }),
    );
    for (const item of out.Items ?? []) records.push(strip<TokenRecordItem>(item, INDEX_ATTRIBUTES));
    // gsi1sk is unique (it ends in the token id), so the last key read is where the next read starts.
    const lastRead = out.LastEvaluatedKey?.gsi1sk as string | undefined;
    if (lastRead === undefined) return { records, after: null };
    if (records.length === options.limit) return { records, after: lastRead };
    after = lastRead;
  }
}

/** When each of these tokens was last used (ms), by token id; unused ones are absent. */
export async function lastUses(tokenIds: readonly string[]): Promise<Map<string, number>> {
  if (tokenIds.length === 0) return new Map();
  const items = await batchGetRaw(tokenIds.map((id) => identityKeys.tokenUse(id)));
  return new Map(items.map((item) => [String(item.pk).slice(TOKEN_USE_PREFIX.length), item.last_used_at as number]));
}

/**
 * Records a use of a token at `now`, unless a later one is recorded already. `removalAt` (s) is
 * the token's own removal time, so the use item goes with it.
 */
export async function recordTokenUse(tokenId: string, now: number, removalAt: number | undefined): Promise<void> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: identityKeys.tokenUse(tokenId),
        UpdateExpression: removalAt === undefined ? 'SET last_used_at = :now' : 'SET last_used_at = :now, expires_at_s = :ttl',
        ConditionExpression: 'attribute_not_exists(last_used_at) OR last_used_at < :now',
        ExpressionAttributeValues: { ':now': now, ...(removalAt === undefined ? {} : { ':ttl': removalAt }) },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
