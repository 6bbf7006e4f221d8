/**
 * Authentication and role checks for every route, in one place:
 * the route table says who may call; this module finds the caller from the bearer token
 * (or the session cookie) and enforces it. Missing, unknown or expired credentials are
 * UNAUTHORIZED 401; a valid token of the wrong kind or a role the route does not list is
 * FORBIDDEN 403 (docs/API.md §5), and so is a write authenticated by the session cookie
 * that does not come from this service's own pages (same-origin.ts). Authenticated requests are also counted against their
 * organization's rate limit here (RATE_LIMITED 429, domain/rate-limit/request-rate.ts).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { LedgerError } from '../shared/errors.js';
import type { Caller, OrgCaller } from '../domain/auth/caller.js';
import { SESSION_COOKIE, TOKEN_PREFIX, looksLikeToken, tokenHash } from '../shared/token-format.js';
import type { RouteAuth } from '../routes/route-spec.js';
import { loadCallerCached, type TokenRejection } from '../domain/auth/caller-lookup.js';
import { enforceRequestRate } from '../domain/rate-limit/request-rate.js';
import { headerValue } from './json-body.js';
import { assertSameOriginWrite } from './same-origin.js';

/**
 * The credential presented: `Authorization: Bearer <token>` first, then the session cookie.
 * The cookie carries session tokens only (docs/API.md §5: a session token is usable as cookie or
 * bearer; an API token is a bearer credential): a browser sends cookies on its own, so an
 * API token planted in the cookie would lend its powers (rotation, agents' submissions) to
 * any page that makes the browser send a request. Anything else in the cookie is ignored.
 */
export function presentedToken(event: APIGatewayProxyEventV2): string | undefined {
  return presentedCredential(event)?.token;
}

/** The credential presented and whether it came in the cookie (an ambient credential, same-origin.ts). */
function presentedCredential(event: APIGatewayProxyEventV2): { token: string; viaCookie: boolean } | undefined {
  const authorization = headerValue(event, 'authorization');
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match?.[1] === undefined ? undefined : { token: match[1], viaCookie: false };
  }
  for (const cookie of event.cookies ?? []) {
    const [name, ...rest] = cookie.trim().split('=');
    if (name !== SESSION_COOKIE) continue;
    const value = rest.join('=');
    return value.startsWith(TOKEN_PREFIX.session) ? { token: value, viaCookie: true } : undefined;
  }
  return undefined;
}

const unauthorized = () => new LedgerError('UNAUTHORIZED', 'missing, invalid or expired credentials');

const REJECTION_MESSAGES: Record<TokenRejection, string> = {
  expired: 'this API token has expired; make a new one on the console\'s API tokens page and sign in with it again',
  revoked: 'this API token was revoked; make a new one on the console\'s API tokens page and sign in with it again',
  rotated: 'this API token was replaced by rotation and its grace period is over; use its replacement',
};

function rejectedToken(reason: TokenRejection): LedgerError {
  return new LedgerError('UNAUTHORIZED', REJECTION_MESSAGES[reason], { reason });
}

/**
 * Resolves the caller a route requires. Returns null only for `public` routes and for
 * `optional` routes called without a valid token.
 */
export async function authenticate(auth: RouteAuth, event: APIGatewayProxyEventV2, now = Date.now()): Promise<Caller | null> {
  if (auth === 'public') return null;
  const identified = await identifyCaller(event, now);
  const caller = typeof identified === 'string' ? null : identified;
  if (auth === 'optional') return caller;
  // Only the holder of the token learns why it stopped working, and what to do (docs/API.md §7).
  if (typeof identified === 'string') throw rejectedToken(identified);
  if (!caller) throw unauthorized();
  if (auth === 'user') return caller;
  if (auth === 'session' || auth === 'api_token') {
    const wanted = auth === 'session' ? 'session' : 'api';
    if (caller.tokenKind !== wanted) {
      throw new LedgerError('FORBIDDEN', `this endpoint requires ${auth === 'session' ? 'a session token' : 'an API token'}`);
    }
    return caller;
  }
  return requireRole(caller, auth);
}

/**
 * Token → user, and the per-organization rate limit (docs/API.md §7/§8), which counts every
 * authenticated request as soon as we know whose organization it is (before role checks:
 * refused calls load us too). API tokens come from the process's cache (caller-lookup.ts)
 * and the limit from the process's reservations (request-rate.ts), so on a warm process the
 * hot path (agents submitting) pays no round trip here.
 */
async function identifyCaller(event: APIGatewayProxyEventV2, now: number): Promise<Caller | TokenRejection | null> {
  const credential = presentedCredential(event);
  // Before the token is even looked up: a forged write learns nothing and costs no read.
  if (credential?.viaCookie) assertSameOriginWrite(event);
  const presented = credential?.token;
  const found = presented && looksLikeToken(presented) ? await loadCallerCached(tokenHash(presented), now) : null;
  if (!found) return null;
  if ('rejected' in found) return found.kind === 'api' ? found.rejected : null;
  const { token, caller } = found;
  await enforceRequestRate(typeof token.org_id === 'string' ? { orgId: token.org_id, userId: token.user_id } : caller, now);
  return caller;
}

/** docs/API.md §4: an organization member holding one of the listed roles. */
function requireRole(caller: Caller, roles: readonly string[]): OrgCaller {
  if (caller.orgId === null) {
    throw new LedgerError('FORBIDDEN', 'complete onboarding (join or create an organization) first');
  }
  if (!roles.includes(caller.role)) {
    throw new LedgerError('FORBIDDEN', `role ${caller.role} may not call this endpoint`);
  }
  return caller as OrgCaller;
}
