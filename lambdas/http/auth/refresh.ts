/** POST /v1/auth/refresh (docs/API.md §4.1, session only): a new session token; the old one ends. */
import { LedgerError } from '../../shared/errors.js';
import { refreshSession } from '../../domain/identity/tokens.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { defineHandler } from '../define-handler.js';
import { sessionCookie } from './cookies.js';
import { presentedHash } from './presented-hash.js';

export const handler = defineHandler(authRoutes.refresh, async ({ caller, event }) => {
  const hash = presentedHash(event);
  if (!hash) throw new LedgerError('UNAUTHORIZED', 'missing, invalid or expired credentials');
  const session = await refreshSession(caller, hash);
  return { body: { token: session.token }, cookies: [sessionCookie(event, session.token, session.expiresAt)] };
});
