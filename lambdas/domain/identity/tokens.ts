/**
 * Sessions and API tokens (docs/API.md §4.1, §5).
 *
 * - A session lasts 7 days (docs/API.md leaves the lifetime open; docs/CONSOLE.md, Accounts and sessions).
 *   Refresh hands out a new one and ends the old at once.
 * - An API token lives ttl_seconds (1..31536000) or forever, within the organization's cap
 *   (max_token_ttl_seconds), and belongs to the membership it was issued in
 *   (domain/auth/caller-lookup.ts): removing the member ends it for good. Rotation hands out a
 *   new one with the same name and lifetime and keeps the old one working for the grace period
 *   (LEDGER_TOKEN_GRACE_SECONDS, 1 hour by default), never past its own expiry. Issue and
 *   rotation write the token's record (store/token-records.ts: listing and revocation,
 *   token-management.ts) and admin events token.create and token.rotate.
 *
 * Each change that ends a token is one transaction with the token that replaces it, so a
 * client never holds two live successors of one token, nor none.
 */
import { config } from '../../config.js';
import type { TokenItem } from '../../store/identity-items.js';
import { mintToken, removalTime, tokenEnd, tokenPut, getToken } from '../../store/tokens.js';
import { tokenRecordEnd, tokenRecordPut } from '../../store/token-records.js';
import { getOrg, orgAllowsTokenLifetime } from '../../store/orgs.js';
import { adminEventPut } from '../../store/admin-events.js';
import { transact } from '../../store/guarded-transact.js';
import type { Caller, OrgCaller } from '../auth/caller.js';
import { LedgerError, conflict } from '../../shared/errors.js';
import { forgetCachedCallers } from '../auth/caller-lookup.js';

const SESSION_TTL_SECONDS = 7 * 24 * 60 * 60;
/** docs/API.md §8. */
const MAX_API_TOKEN_TTL_SECONDS = 31_536_000;

export interface IssuedSession {
  token: string;
  tokenId: string;
  expiresAt: number;
}

interface IssuedApiToken {
  token: string;
  token_id: string;
  /** Unix seconds or null (docs/API.md §4.1). */
  expires_at: number | null;
}

const unixSeconds = (ms: number) => Math.floor(ms / 1000);

function newSession(userId: string, now: number) {
  return mintToken('session', { userId, now, expiresAt: now + SESSION_TTL_SECONDS * 1000 });
}

export async function createSession(userId: string, now = Date.now()): Promise<IssuedSession> {
  const session = newSession(userId, now);
  await transact([{ item: tokenPut(session) }]);
  return { token: session.token, tokenId: session.item.token_id, expiresAt: session.item.expires_at as number };
}

/** POST /v1/auth/refresh: a new session; the presented one ends now. */
export async function refreshSession(caller: Caller, presentedHash: string, now = Date.now()): Promise<IssuedSession> {
  const session = newSession(caller.userId, now);
  await transact([
    { item: tokenPut(session) },
    {
      item: tokenEnd(presentedHash, now, now, session.item.token_id),
      // Lost a race with another refresh or sign-out of the same session.
      onConditionFailed: () => new LedgerError('UNAUTHORIZED', 'this session has ended'),
    },
  ]);
  return { token: session.token, tokenId: session.item.token_id, expiresAt: session.item.expires_at as number };
}

/** Sign-out: the session ends now. Ending an ended session is not an error. */
export async function endSession(presentedHash: string, now = Date.now()): Promise<void> {
  await transact([{ item: tokenEnd(presentedHash, now, now), onConditionFailed: () => new LedgerError('UNAUTHORIZED', 'already ended') }]).catch(
    (error: unknown) => {
      if (!(error instanceof LedgerError && error.code === 'UNAUTHORIZED')) throw error;
    },
  );
}

/** Whole seconds, so expires_at in the response (seconds) is exactly when the token stops. */
function expiryOf(ttlSeconds: number | null, now: number): number | null {
  return ttlSeconds === null ? null : (unixSeconds(now) + ttlSeconds) * 1000;
}

function apiToken(caller: OrgCaller, ttlSeconds: number | null, now: number, name: string | undefined) {
  return mintToken('api', {
    userId: caller.userId,
    now,
    expiresAt: expiryOf(ttlSeconds, now),
    orgId: caller.orgId,
    membershipId: caller.membershipId,
    ttlSeconds,
    name,
    listed: true,
  });
}

function issued(minted: ReturnType<typeof apiToken>): IssuedApiToken {
  const expiresAt = minted.item.expires_at;
  return { token: minted.token, token_id: minted.item.token_id, expires_at: expiresAt === null ? null : unixSeconds(expiresAt) };
}

const tokenEvent = (caller: OrgCaller, action: 'token.create' | 'token.rotate', minted: ReturnType<typeof apiToken>, now: number, extra: Record<string, unknown> = {}) =>
  adminEventPut({
    orgId: caller.orgId,
    actor: caller.userId,
    action,
    targetType: 'token',
    targetId: minted.item.token_id,
    details: { name: minted.item.name ?? null, expires_at: issued(minted).expires_at, ...extra },
    now,
  });

interface ApiTokenRequest {
  ttl_seconds?: number | null | undefined;
  name?: string | undefined;
}

/**
 * POST /v1/auth/token (docs/API.md §4.1): needs a current organization. Under the
 * organization's lifetime cap an omitted ttl_seconds gets the cap, and a longer one (or null,
 * no expiry) is VALIDATION_ERROR; the cap is checked again in the transaction.
 */
export async function issueApiToken(caller: Caller, request: ApiTokenRequest, now = Date.now()): Promise<IssuedApiToken> {
  const member = inOrganization(caller);
  const cap = (await getOrg(member.orgId))?.max_token_ttl_seconds;
  const ttlSeconds = requestedLifetime(request.ttl_seconds, cap);
  const minted = apiToken(member, ttlSeconds, now, request.name);
  await transact([
    { item: tokenPut(minted) },
    { item: tokenRecordPut(minted) },
    { item: orgAllowsTokenLifetime(member.orgId, ttlSeconds), onConditionFailed: () => overCap(null) },
    { item: tokenEvent(member, 'token.create', minted, now) },
  ]);
  return issued(minted);
}

function inOrganization(caller: Caller): OrgCaller {
  if (caller.orgId === null) {
    throw new LedgerError('FORBIDDEN', 'an API token needs a current organization; complete onboarding first');
  }
  return caller as OrgCaller;
}

const overCap = (cap: number | null) =>
  new LedgerError(
    'VALIDATION_ERROR',
    `ttl_seconds: this organization caps API token lifetimes${cap === null ? '' : ` at ${cap} seconds`} (max_token_ttl_seconds, docs/API.md §2.7)`,
  );

function requestedLifetime(ttlSeconds: number | null | undefined, cap: number | undefined): number | null {
  if (cap === undefined) return ttlSeconds ?? null;
  if (ttlSeconds === undefined) return cap;
  if (ttlSeconds === null || ttlSeconds > cap) throw overCap(cap);
  return ttlSeconds;
}

/** The lifetime a token was issued with (items written without ttl_seconds: from its times). */
function lifetimeOf(token: TokenItem): number | null {
  if (token.ttl_seconds !== undefined) return token.ttl_seconds;
  if (token.expires_at === null) return null;
  return Math.max(1, Math.min(MAX_API_TOKEN_TTL_SECONDS, Math.round((token.expires_at - token.created_at) / 1000)));
}

interface RotatedApiToken extends IssuedApiToken {
  previous_token_grace_until: number;
}

/**
 * POST /v1/auth/rotate (docs/API.md §4.1): a rotated token cannot be rotated again (its
 * successor can). The successor keeps the name and the lifetime, within the organization's
 * cap as it is now.
 */
export async function rotateApiToken(caller: Caller, presentedHash: string, now = Date.now()): Promise<RotatedApiToken> {
  const member = inOrganization(caller);
  const previous: TokenItem | undefined = await getToken(presentedHash);
  if (!previous) throw new LedgerError('UNAUTHORIZED', 'missing, invalid or expired credentials');
  if (previous.revoked_at !== undefined) throw conflict('this token was already rotated; rotate its replacement instead');
  const cap = (await getOrg(member.orgId))?.max_token_ttl_seconds;
  const lifetime = lifetimeOf(previous);
  const ttlSeconds = cap === undefined ? lifetime : Math.min(lifetime ?? cap, cap);
  const minted = apiToken(member, ttlSeconds, now, previous.name);
  let graceUntil = (unixSeconds(now) + config().tokenGraceSeconds) * 1000;
  if (previous.expires_at !== null) graceUntil = Math.min(graceUntil, previous.expires_at);
  const alreadyRotated = () => conflict('this token was already rotated; rotate its replacement instead');
  await transact([
    { item: tokenPut(minted) },
    { item: tokenRecordPut(minted, previous.token_id) },
    { item: tokenEnd(presentedHash, now, graceUntil, minted.item.token_id), onConditionFailed: alreadyRotated },
    // Tokens issued before token records existed have none to update.
    ...(previous.listed
      ? [{ item: tokenRecordEnd(member.orgId, previous.token_id, now, { graceUntil, removalAt: removalTime(graceUntil), replacedBy: minted.item.token_id }) }]
      : []),
    { item: tokenEvent(member, 'token.rotate', minted, now, { replaces: previous.token_id }) },
  ]);
  forgetCachedCallers({ tokenHash: presentedHash });
  return { ...issued(minted), previous_token_grace_until: unixSeconds(graceUntil) };
}
