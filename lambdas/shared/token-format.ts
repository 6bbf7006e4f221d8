/**
 * Bearer tokens: opaque random strings with a recognizable prefix (so secret scanners and
 * people can tell what leaked), stored only as their SHA-256. 32 random
 * bytes make guessing hopeless, so a plain unsalted hash is enough for lookup.
 */
import { randomBytes } from 'node:crypto';
import { sha256B64u } from '@agent-ledger/protocol';

/** Session tokens (browsers, sign-in) and API tokens (agents, tooling), docs/API.md §5. */
export type TokenKind = 'session' | 'api';

export const TOKEN_PREFIX: Record<TokenKind, string> = {
  session: 'als_',
  api: 'alt_',
};

/** Cookie carrying the session token for browsers (docs/API.md §5: usable as cookie or bearer). */
export const SESSION_COOKIE = 'ledger_session';

export function newToken(kind: TokenKind): string {
  return TOKEN_PREFIX[kind] + randomBytes(32).toString('base64url');
}

/** The lookup key of a token; the token itself is never stored. */
export function tokenHash(token: string): string {
  return sha256B64u(new TextEncoder().encode(token));
}

/** Cheap shape check before any lookup: prefix, then 43 base64url characters. */
export function looksLikeToken(token: string): boolean {
  return /^al[st]_[A-Za-z0-9_-]{43}$/.test(token);
}
