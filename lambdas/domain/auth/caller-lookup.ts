/**
 * Reads the caller behind a token hash: the token item, then its user (for the current
 * organization and role). Two point reads; a revoked token still works until its grace
 * period ends (token rotation, docs/API.md §4.1). The reads are strongly consistent.
 *
 * API tokens (what agents submit with: the hot path) are cached per process for
 * LEDGER_CALLER_CACHE_MS (default 5 s; docs/COST.md, Caches). A change made through this
 * process (a rotation, a role change, a removal) drops the entries it concerns at once
 * (`forgetCachedCallers`); another process may still act on what it read for up to
 * LEDGER_CALLER_CACHE_MS. So a removed member's or a demoted member's API token, and a
 * rotated token whose grace period is shorter than that, stop working within
 * LEDGER_CALLER_CACHE_MS. An expiry is checked against the cached token's own time on every
 * request, to the millisecond. Session tokens (people in the console) are read on every
 * request: signing out and role changes apply to the very next request.
 */
import type { TokenItem } from '../../store/identity-items.js';
import { getToken } from '../../store/tokens.js';
import { getUser } from '../../store/users.js';
import { config } from '../../config.js';
import { TtlCache } from '../../shared/ttl-cache.js';
import type { Caller } from './caller.js';

/** Processes remember this many API tokens at most. */
const MAX_CACHED_TOKENS = 10_000;

let apiTokens: TtlCache<{ token: TokenItem; caller: Caller | null }> | undefined;
/** user id → the token hashes cached for that user, so a change to the user drops them all. */
const hashesOfUser = new Map<string, Set<string>>();

function tokenCache(): TtlCache<{ token: TokenItem; caller: Caller | null }> {
  apiTokens ??= new TtlCache(config().callerCacheMs, MAX_CACHED_TOKENS);
  return apiTokens;
}

/** Forgets every cached API token of this process (tests that change the cache's lifetime). */
export function resetCallerCacheForTests(): void {
  apiTokens = undefined;
  hashesOfUser.clear();
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
  if (token.expires_at !== null && now >= token.expires_at) return false;
  if (token.revoked_at !== undefined && now >= (token.grace_until ?? token.revoked_at)) return false;
  return true;
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
    membershipId: user.membership_id,
  };
}

export async function loadCaller(hash: string, now: number): Promise<Caller | null> {
  const token = await loadToken(hash, now);
  return token ? loadTokenUser(token) : null;
}

/**
 * The caller behind a token hash, through the per-process API token cache (module comment):
 * null for an unknown, expired, ended or orphaned token.
 */
export async function loadCallerCached(hash: string, now: number): Promise<{ token: TokenItem; caller: Caller } | null> {
  const entry = tokenCache().get(hash) ?? (await loadOnce(hash));
  if (!entry || !tokenUsable(entry.token, now) || !entry.caller) return null;
  return { token: entry.token, caller: entry.caller };
}

/** Requests that miss the cache at the same moment (it just expired) share one read of the token and its user. */
const loading = new Map<string, Promise<{ token: TokenItem; caller: Caller | null } | null>>();

function loadOnce(hash: string): Promise<{ token: TokenItem; caller: Caller | null } | null> {
  let pending = loading.get(hash);
  if (!pending) {
    pending = load(hash).finally(() => loading.delete(hash));
    loading.set(hash, pending);
  }
  return pending;
}

async function load(hash: string): Promise<{ token: TokenItem; caller: Caller | null } | null> {
  const token = await getToken(hash);
  if (!token) return null;
  const entry = { token, caller: await loadTokenUser(token) };
  if (token.kind === 'api') {
    tokenCache().set(hash, entry);
    let hashes = hashesOfUser.get(token.user_id);
    if (!hashes) hashesOfUser.set(token.user_id, (hashes = new Set()));
    // Bounded by the cache: a user's set is replaced once it outgrows it.
    if (hashes.size > MAX_CACHED_TOKENS) hashes.clear();
    hashes.add(hash);
  }
  return entry;
}
