/**
 * Reads the caller behind a token hash: the token item, then its user (for the current
 * organization and role). Both reads are strongly consistent; a rotated token still works
 * until its grace period ends (token rotation, docs/API.md §4.1).
 *
 * The token item is read on every request, so a revocation, a rotation's end and an expiry
 * apply to the very next request in every process (docs/API.md §4.1: a revoked token fails
 * at once). For API tokens (what agents submit with: the hot path) the user behind the token
 * is cached per process for LEDGER_CALLER_CACHE_MS (default 5 s; docs/COST.md, Caches): a
 * change made through this process (a role change, a removal) drops the entries it concerns
 * at once (`forgetCachedCallers`); another process may still act on the role it read for up
 * to LEDGER_CALLER_CACHE_MS. Session tokens (people in the console) read the user on every
 * request too: signing out and role changes apply to the very next request.
 *
 * An API token's use is recorded at most once a minute per process (store/token-records.ts),
 * which is what `last_used_at` in the token list means.
 */
import type { TokenItem } from '../../store/identity-items.js';
import { getToken, removalTime } from '../../store/tokens.js';
import { recordTokenUse } from '../../store/token-records.js';
import { getUser } from '../../store/users.js';
import { config } from '../../config.js';
import { TtlCache } from '../../shared/ttl-cache.js';
import { logger } from '../../logger.js';
import type { Caller } from './caller.js';

/** Processes remember this many API tokens at most. */
const MAX_CACHED_TOKENS = 10_000;

/** The user an API token acts for, as read when it was cached (null: the token no longer has one). */
type CachedCaller = { caller: Caller | null };

let apiTokens: TtlCache<CachedCaller> | undefined;
/** user id → the token hashes cached for that user, so a change to the user drops them all. */
const hashesOfUser = new Map<string, Set<string>>();

function tokenCache(): TtlCache<CachedCaller> {
  apiTokens ??= new TtlCache(config().callerCacheMs, MAX_CACHED_TOKENS);
  return apiTokens;
}

/** Forgets every cached API token of this process (tests that change the cache's lifetime). */
export function resetCallerCacheForTests(): void {
  apiTokens = undefined;
  hashesOfUser.clear();
  recordedUses.clear();
}

/** Drops what this process cached about a token, or about every token of a user, after changing it. */
export function forgetCachedCallers(which: { tokenHash?: string; userId?: string }): void {
  if (which.tokenHash) apiTokens?.delete(which.tokenHash);
  if (which.userId) {
    for (const hash of hashesOfUser.get(which.userId) ?? []) apiTokens?.delete(hash);
    hashesOfUser.delete(which.userId);
  }
}

export function tokenUsable(token: TokenItem, now: number): boolean {
  return tokenRejection(token, now) === null;
}

/** Why a token the service knows does not work (docs/API.md §7 `reason`), or null while it works. */
export type TokenRejection = 'expired' | 'revoked' | 'rotated';

export function tokenRejection(token: TokenItem, now: number): TokenRejection | null {
  if (token.revoked_by !== undefined && now >= (token.grace_until ?? token.revoked_at ?? 0)) return 'revoked';
  if (token.expires_at !== null && now >= token.expires_at) return 'expired';
  if (token.revoked_at !== undefined && now >= (token.grace_until ?? token.revoked_at)) return token.replaced_by === undefined ? 'revoked' : 'rotated';
  return null;
}

/** The usable token item behind a hash, or null. */
export async function loadToken(hash: string, now: number): Promise<TokenItem | null> {
  const token = await getToken(hash);
  return token && tokenUsable(token, now) ? token : null;
}

/** The caller a usable token acts for, with the user's current organization and role. */
export async function loadTokenUser(token: TokenItem): Promise<Caller | null> {
  const user = await getUser(token.user_id);
  if (!user || user.status !== 'active') return null;
  // An API token belongs to the membership it was issued in: once its user was removed or
  // moved on it is as dead as an expired one (UNAUTHORIZED, docs/API.md §5), and a later
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
    tokenName: token.name ?? null,
    tokenExpiresAt: token.expires_at,
    membershipId: user.membership_id,
  };
}

export async function loadCaller(hash: string, now: number): Promise<Caller | null> {
  const token = await loadToken(hash, now);
  return token ? loadTokenUser(token) : null;
}

export type CallerLookup = { token: TokenItem; caller: Caller } | { rejected: TokenRejection; kind: TokenItem['kind'] } | null;

/**
 * The caller behind a token hash (module comment): the token item read now, its user through
 * the per-process cache for API tokens. `rejected` says why a known token no longer works;
 * null for an unknown token or one whose user is gone or moved on.
 */
export async function loadCallerCached(hash: string, now: number): Promise<CallerLookup> {
  const token = await getToken(hash);
  if (!token) return null;
  const rejected = tokenRejection(token, now);
  if (rejected) return { rejected, kind: token.kind };
  if (token.kind !== 'api') {
    const caller = await loadTokenUser(token);
    return caller ? { token, caller } : null;
  }
  const entry = tokenCache().get(hash) ?? (await loadOnce(hash, token));
  if (!entry.caller) return null;
  await noteUse(token, now);
  return { token, caller: { ...entry.caller, tokenName: token.name ?? null, tokenExpiresAt: token.expires_at } };
}

/** Requests that miss the cache at the same moment (it just expired) share one read of the user. */
const loading = new Map<string, Promise<CachedCaller>>();

function loadOnce(hash: string, token: TokenItem): Promise<CachedCaller> {
  let pending = loading.get(hash);
  if (!pending) {
    pending = load(hash, token).finally(() => loading.delete(hash));
    loading.set(hash, pending);
  }
  return pending;
}

async function load(hash: string, token: TokenItem): Promise<CachedCaller> {
  const entry = { caller: await loadTokenUser(token) };
  tokenCache().set(hash, entry);
  let hashes = hashesOfUser.get(token.user_id);
  if (!hashes) hashesOfUser.set(token.user_id, (hashes = new Set()));
  // Bounded by the cache: a user's set is replaced once it outgrows it.
  if (hashes.size > MAX_CACHED_TOKENS) hashes.clear();
  hashes.add(hash);
  return entry;
}

/** How often a process records one token's use: `last_used_at` is accurate to this. */
const USE_RESOLUTION_MS = 60_000;
/** token id → when this process last recorded its use. */
const recordedUses = new Map<string, number>();

async function noteUse(token: TokenItem, now: number): Promise<void> {
  const last = recordedUses.get(token.token_id);
  if (last !== undefined && now - last < USE_RESOLUTION_MS) return;
  if (recordedUses.size >= MAX_CACHED_TOKENS) recordedUses.clear();
  recordedUses.set(token.token_id, now);
  // A lost use record costs a minute of last_used_at, never the request.
  await recordTokenUse(token.token_id, now, removalTime(token.grace_until ?? token.expires_at)).catch((error: unknown) =>
    logger.warn('could not record a token use', { error: error instanceof Error ? error : String(error) }),
  );
}
