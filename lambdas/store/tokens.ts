/**
 * Session and API token items (identity-items.ts layout). Only the SHA-256 of a token is a
 * key (token-format.ts); the token itself exists in the response that hands it out and
 * nowhere else (docs/API.md §4.1: shown once).
 */
import { newToken, tokenHash, type TokenKind } from '../shared/token-format.js';
import { identityKeys, type TokenItem } from './identity-items.js';
import { getItem, table, type TransactItem } from './dynamo.js';

export interface NewToken {
  /** The bearer value; returned to the client once, never stored or logged. */
  token: string;
  hash: string;
  item: TokenItem;
}

interface TokenOptions {
  userId: string;
  now: number;
  /** Unix ms, or null for no expiry. */
  expiresAt: number | null;
  orgId?: string | null;
  /** The caller's membership (UserItem.membership_id), for API tokens. */
  membershipId?: string | undefined;
  ttlSeconds?: number | null;
  /** API tokens: the name given at issue. */
  name?: string | undefined;
  /** API tokens written with their record (token-records.ts). */
  listed?: boolean;
}

/**
 * How long a token's items stay after it stopped working: so a client presenting it is told
 * it expired or was revoked (docs/API.md §7, `reason`), and the token list shows how it ended.
 */
const KEEP_ENDED_TOKEN_MS = 30 * 24 * 60 * 60 * 1000;

/** DynamoDB TTL (seconds): KEEP_ENDED_TOKEN_MS after the moment a token can no longer work, if there is one. */
export function removalTime(endMs: number | null): number | undefined {
  return endMs === null ? undefined : Math.ceil((endMs + KEEP_ENDED_TOKEN_MS) / 1000);
}

export function mintToken(kind: TokenKind, options: TokenOptions): NewToken {
  const token = newToken(kind);
  const item: TokenItem = {
    token_id: crypto.randomUUID(),
    kind,
    user_id: options.userId,
    created_at: options.now,
    expires_at: options.expiresAt,
    ...(options.orgId === undefined ? {} : { org_id: options.orgId }),
    ...(options.membershipId === undefined ? {} : { membership_id: options.membershipId }),
    ...(options.ttlSeconds === undefined ? {} : { ttl_seconds: options.ttlSeconds }),
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.listed ? { listed: true as const } : {}),
  };
  const expiresAtS = removalTime(options.expiresAt);
  if (expiresAtS !== undefined) item.expires_at_s = expiresAtS;
  return { token, hash: tokenHash(token), item };
}

export function tokenPut({ hash, item }: NewToken): TransactItem {
  return {
    Put: {
      TableName: table(),
      Item: { ...identityKeys.token(hash), type: 'token', ...item },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The token item behind a hash (strongly consistent: a revocation applies to the very next request). */
export const getToken = (hash: string) => getItem<TokenItem>(identityKeys.token(hash));

/**
 * Ends a token at `graceUntil` (ms; `now` for at once). The condition makes it happen once:
 * a token already ended or replaced cannot be ended again, so two concurrent refreshes or
 * rotations of one token cannot both succeed.
 */
export function tokenEnd(hash: string, now: number, graceUntil: number, replacedBy?: string): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: identityKeys.token(hash),
      UpdateExpression: `SET revoked_at = :now, grace_until = :grace, expires_at_s = :ttl${replacedBy ? ', replaced_by = :by' : ''}`,
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revoked_at)',
      ExpressionAttributeValues: {
        ':now': now,
        ':grace': graceUntil,
        ':ttl': removalTime(graceUntil),
        ...(replacedBy ? { ':by': replacedBy } : {}),
      },
    },
  };
}

/**
 * Revokes a token now (DELETE /v1/auth/tokens/:id): also one still in its rotation grace
 * period, whose grace ends. A token revoked already, or one that no longer works at all,
 * fails the condition.
 */
export function tokenRevoke(hash: string, now: number, revokedBy: string): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: identityKeys.token(hash),
      UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now), grace_until = :now, revoked_by = :by, expires_at_s = :ttl',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revoked_by) AND (attribute_not_exists(grace_until) OR grace_until > :now)',
      ExpressionAttributeValues: { ':now': now, ':by': revokedBy, ':ttl': removalTime(now) },
    },
  };
}
