/**
 * Listing and revoking API tokens (docs/API.md §4.1): GET /v1/auth/tokens and DELETE
 * /v1/auth/tokens/:token_id. A member sees and revokes their own tokens; org_owner and
 * security_admin the organization's. Anything else, another organization's token included,
 * is NOT_FOUND: the answer never tells a token id that exists from one that does not.
 *
 * Revocation ends the token at once, in every process: the token item is read on every
 * request (domain/auth/caller-lookup.ts), so no cache outlives it. Revoking a token that
 * replaced another by rotation also ends the other's grace period, so a rotation cannot leave
 * the token it retired working after its successor was killed.
 */
import { ADMINS } from '../../shared/roles.js';
import { LedgerError, conflict, notFound } from '../../shared/errors.js';
import type { TokenRecordItem } from '../../store/identity-items.js';
import { getToken, removalTime, tokenRevoke } from '../../store/tokens.js';
import { getTokenRecord, lastUses, listTokenRecords, tokenRecordEnd } from '../../store/token-records.js';
import { adminEventPut } from '../../store/admin-events.js';
import { transact, type GuardedItem } from '../../store/guarded-transact.js';
import type { OrgCaller } from '../auth/caller.js';
import { forgetCachedCallers } from '../auth/caller-lookup.js';

type TokenStatus = 'active' | 'rotating' | 'rotated' | 'revoked' | 'expired';

/** docs/API.md §2.7 "API token": times in Unix seconds, like the token answers of §4.1. */
interface TokenView {
  token_id: string;
  name: string | null;
  user_id: string;
  status: TokenStatus;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  /** When it stopped (or stops, while rotating) working; null while active or until it expires. */
  ended_at: number | null;
  replaced_by: string | null;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

function tokenStatus(record: Pick<TokenRecordItem, 'revoked_by' | 'replaced_by' | 'grace_until' | 'expires_at'>, now: number): TokenStatus {
  if (record.revoked_by !== undefined) return 'revoked';
  if (record.expires_at !== null && now >= record.expires_at) return 'expired';
  if (record.replaced_by !== undefined) return now < (record.grace_until ?? 0) ? 'rotating' : 'rotated';
  return 'active';
}

function tokenView(record: TokenRecordItem, lastUsedAt: number | undefined, now: number): TokenView {
  const status = tokenStatus(record, now);
  const endedAt = status === 'expired' ? record.expires_at : (record.grace_until ?? null);
  return {
    token_id: record.token_id,
    name: record.name,
    user_id: record.user_id,
    status,
    created_at: seconds(record.created_at),
    expires_at: record.expires_at === null ? null : seconds(record.expires_at),
    last_used_at: lastUsedAt === undefined ? null : seconds(lastUsedAt),
    ended_at: endedAt === null ? null : seconds(endedAt),
    replaced_by: record.replaced_by ?? null,
  };
}

/**
 * The list's cursor: where the next page starts in the organization's records (their gsi1 sort
 * key), base64url. It reads only the caller's own organization's partition, so it needs no
 * protection beyond being well formed.
 */
const tokenCursor = (after: string) => Buffer.from(after).toString('base64url');

function cursorStart(cursor: string): string {
  const after = Buffer.from(cursor, 'base64url').toString();
  if (!/^\d{13}#[0-9a-f-]{36}$/.test(after)) throw new LedgerError('VALIDATION_ERROR', 'cursor: not a cursor of this list');
  return after;
}

const seesAll = (caller: OrgCaller) => ADMINS.includes(caller.role);

interface TokenListQuery {
  limit?: number | undefined;
  cursor?: string | undefined;
  /** org_owner and security_admin: one member's tokens. */
  user_id?: string | undefined;
}

/** GET /v1/auth/tokens: newest first, with next_cursor while more may follow. */
export async function listTokens(caller: OrgCaller, query: TokenListQuery, now = Date.now()) {
  if (query.user_id !== undefined && !seesAll(caller) && query.user_id !== caller.userId) {
    throw new LedgerError('FORBIDDEN', `role ${caller.role} sees its own tokens only`);
  }
  const userId = seesAll(caller) ? query.user_id : caller.userId;
  const page = await listTokenRecords(caller.orgId, {
    limit: query.limit ?? 50,
    after: query.cursor === undefined ? undefined : cursorStart(query.cursor),
    userId,
  });
  const used = await lastUses(page.records.map((record) => record.token_id));
  return {
    tokens: page.records.map((record) => tokenView(record, used.get(record.token_id), now)),
    next_cursor: page.after === null ? null : tokenCursor(page.after),
  };
}

async function visibleRecord(caller: OrgCaller, tokenId: string): Promise<TokenRecordItem> {
  const record = await getTokenRecord(caller.orgId, tokenId);
  if (!record || (!seesAll(caller) && record.user_id !== caller.userId)) throw notFound('token');
  return record;
}

/** The end of a still-working token, as both its token item and its record take it. */
function revocation(record: TokenRecordItem, caller: OrgCaller, now: number): GuardedItem[] {
  return [
    { item: tokenRevoke(record.token_hash, now, caller.userId) },
    { item: tokenRecordEnd(record.org_id, record.token_id, now, { graceUntil: now, removalAt: removalTime(now), revokedBy: caller.userId }) },
  ];
}

/** The token this one replaced, while it still works in its rotation grace period. */
async function predecessorInGrace(record: TokenRecordItem, now: number): Promise<TokenRecordItem | undefined> {
  if (record.replaces === undefined) return undefined;
  const previous = await getTokenRecord(record.org_id, record.replaces);
  if (!previous || previous.revoked_by !== undefined || (previous.grace_until ?? 0) <= now) return undefined;
  return previous;
}

/**
 * DELETE /v1/auth/tokens/:token_id. Revoking a token that no longer works (revoked, expired,
 * rotated past its grace) changes nothing and answers with it as it is.
 */
export async function revokeToken(caller: OrgCaller, tokenId: string, now = Date.now()): Promise<TokenView> {
  const record = await visibleRecord(caller, tokenId);
  const used = await lastUses([tokenId]);
  const token = await getToken(record.token_hash);
  const stillWorks = token !== undefined && token.revoked_by === undefined && tokenStatus(record, now) !== 'expired' && tokenStatus(record, now) !== 'rotated';
  if (!stillWorks) return tokenView(record, used.get(tokenId), now);
  const previous = await predecessorInGrace(record, now);
  const changed = () => conflict('this token changed meanwhile; try again');
  await transact([
    ...[...revocation(record, caller, now), ...(previous ? revocation(previous, caller, now) : [])].map((item) => ({ ...item, onConditionFailed: changed })),
    {
      item: adminEventPut({
        orgId: caller.orgId,
        actor: caller.userId,
        action: 'token.revoke',
        targetType: 'token',
        targetId: tokenId,
        details: { user_id: record.user_id, name: record.name, ...(previous ? { also_ended: previous.token_id } : {}) },
        now,
      }),
    },
  ]);
  forgetCachedCallers({ tokenHash: record.token_hash });
  if (previous) forgetCachedCallers({ tokenHash: previous.token_hash });
  return tokenView({ ...record, revoked_at: now, grace_until: now, revoked_by: caller.userId }, used.get(tokenId), now);
}
