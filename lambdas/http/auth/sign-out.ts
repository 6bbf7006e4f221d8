/** POST /api/auth/sign-out: ends the presented session and clears its cookie. */
import { endSession } from '../../domain/identity/tokens.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { defineHandler } from '../define-handler.js';
import { clearedSessionCookie } from './cookies.js';
import { presentedHash } from './presented-hash.js';

export const handler = defineHandler(authRoutes.signOut, async ({ event }) => {
  const hash = presentedHash(event);
  if (hash) await endSession(hash);
  return { body: { success: true as const }, cookies: [clearedSessionCookie(event)] };
});
