/**
 * Cookies of the auth routes (docs/API.md §5: a session token is usable as a cookie).
 *
 * - `ledger_session`: the session token. HttpOnly (no script can read it), SameSite=Strict
 *   (never sent on a request another site starts, not even a top-level navigation), Path=/,
 *   Max-Age = the session's remaining lifetime, Secure whenever the request came over HTTPS
 *   (always in AWS; the local stack is plain HTTP). Strict does not break social sign-in:
 *   the callback only *sets* it (a cookie set on a cross-site navigation's response is
 *   stored), and the page it redirects to is the console, whose HTML needs no cookie and
 *   whose API calls are same-origin fetches, which carry it. Writes authenticated by it
 *   are also checked for their origin (same-origin.ts), since SameSite does not tell a
 *   sibling origin of the same site apart.
 * - `ledger_oauth_state`: binds a social sign-in to the browser that started it, only sent
 *   to the callback path, 10 minutes. SameSite=Lax, not Strict: it must come along on the
 *   provider's cross-site redirect to the callback, a top-level GET.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { config } from '../../config.js';
import { SESSION_COOKIE } from '../../shared/token-format.js';
import { OAUTH_STATE_TTL_MS } from '../../domain/identity/social.js';
import { headerValue } from '../json-body.js';

export const STATE_COOKIE = 'ledger_oauth_state';
export const CALLBACK_PATH_PREFIX = '/api/auth/callback';

/**
 * The origin the client used to reach us: API Gateway sets Host and X-Forwarded-Proto. Used
 * only to decide the cookies' Secure attribute; links are built from LEDGER_PUBLIC_URL
 * (config.ts), never from these client-chosen headers.
 */
export function requestOrigin(event: APIGatewayProxyEventV2): string {
  const host = headerValue(event, 'host') ?? event.requestContext?.domainName ?? 'localhost';
  const proto = headerValue(event, 'x-forwarded-proto')?.split(',')[0]?.trim() ?? (config().stage === 'local' ? 'http' : 'https');
  return `${proto}://${host}`;
}

const secure = (event: APIGatewayProxyEventV2) => (requestOrigin(event).startsWith('https:') ? '; Secure' : '');

export function sessionCookie(event: APIGatewayProxyEventV2, token: string, expiresAt: number, now = Date.now()): string {
  // Rounded up: the cookie may outlive the session by under a second, which the server ignores.
  const maxAge = Math.max(0, Math.ceil((expiresAt - now) / 1000));
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure(event)}`;
}

export function clearedSessionCookie(event: APIGatewayProxyEventV2): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure(event)}`;
}

export function stateCookie(event: APIGatewayProxyEventV2, state: string): string {
  return `${STATE_COOKIE}=${state}; Path=${CALLBACK_PATH_PREFIX}; Max-Age=${OAUTH_STATE_TTL_MS / 1000}; HttpOnly; SameSite=Lax${secure(event)}`;
}

export function clearedStateCookie(event: APIGatewayProxyEventV2): string {
  return `${STATE_COOKIE}=; Path=${CALLBACK_PATH_PREFIX}; Max-Age=0; HttpOnly; SameSite=Lax${secure(event)}`;
}

/** A cookie's value from API Gateway's `cookies` list (`name=value` entries). */
export function cookieValue(cookies: readonly string[], name: string): string | undefined {
  for (const cookie of cookies) {
    const at = cookie.indexOf('=');
    if (at > 0 && cookie.slice(0, at).trim() === name) return cookie.slice(at + 1).trim();
  }
  return undefined;
}
