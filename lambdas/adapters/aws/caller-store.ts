/**
 * Reads the caller behind a token hash: the token item, then its user (for the current
 * organization and role). Two point reads; a revoked token still works until its grace
 * period ends (token rotation, SPEC.md §4.1). The user item is read on every request, so a
 * role change or removal applies to the very next request (identity issue, item 2); the
 * reads are strongly consistent so "next" holds even right after the write.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../config.js';
import type { Caller } from '../../domain/auth/caller.js';
import { dynamo } from '../../runtime.js';
import { identityKeys, type TokenItem, type UserItem } from './identity-items.js';

export function tokenUsable(token: TokenItem, now: number): boolean {
  if (token.expires_at !== null && now >= token.expires_at) return false;
  if (token.revoked_at !== undefined && now >= (token.grace_until ?? token.revoked_at)) return false;
  return true;
}

/** The usable token item behind a hash, or null. */
export async function loadToken(hash: string, now: number): Promise<TokenItem | null> {
  const token = (
    await dynamo().send(new GetCommand({ TableName: config().tableName, Key: identityKeys.token(hash), ConsistentRead: true }))
  ).Item as TokenItem | undefined;
  return token && tokenUsable(token, now) ? token : null;
}

/** The caller a usable token acts for, with the user's current organization and role. */
export async function loadTokenUser(token: TokenItem): Promise<Caller | null> {
  const user = (
    await dynamo().send(new GetCommand({ TableName: config().tableName, Key: identityKeys.user(token.user_id), ConsistentRead: true }))
  ).Item as UserItem | undefined;
  if (!user || user.status !== 'active') return null;
  // An API token belongs to the membership it was issued in: once its user was removed or
  // moved on it is as dead as an expired one (UNAUTHORIZED, SPEC.md §5), and a later
  // membership, even in the same organization after a new invitation, never revives it.
  if (typeof token.org_id === 'string' && (token.org_id !== user.org_id || token.membership_id !== user.membership_id)) return null;
  return {
    userId: user.user_id,
    email: user.email,
    displayName: user.name,
    emailVerified: user.email_verified,
    orgId: user.org_id,
    role: user.role,
    tokenKind: token.kind,
    tokenId: token.token_id,
    membershipId: user.membership_id,
  };
}

export async function loadCaller(hash: string, now: number): Promise<Caller | null> {
  const token = await loadToken(hash, now);
  return token ? loadTokenUser(token) : null;
}
