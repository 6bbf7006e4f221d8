/** GET /api/auth/get-session and GET /v1/auth/me (docs/API.md §4.1, §2.7). */
import { getToken } from '../../store/tokens.js';
import { getUser } from '../../store/users.js';
import type { Caller } from '../auth/caller.js';
import { LedgerError } from '../../shared/errors.js';
import { profile, sessionUser, type Profile, type SessionUser } from './user-view.js';

export interface SessionInfo {
  session: { id: string; userId: string; expiresAt: string };
  user: SessionUser;
}

/** The session behind a caller, or null: no token, or an API token, is no session. */
export async function currentSession(caller: Caller | null, tokenHash: string | undefined): Promise<SessionInfo | null> {
  if (!caller || caller.tokenKind !== 'session' || !tokenHash) return null;
  const [token, user] = await Promise.all([getToken(tokenHash), getUser(caller.userId)]);
  if (!token || token.expires_at === null || !user) return null;
  return {
    session: { id: token.token_id, userId: user.user_id, expiresAt: new Date(token.expires_at).toISOString() },
    user: sessionUser(user),
  };
}

export async function currentProfile(caller: Caller): Promise<Profile> {
  const user = await getUser(caller.userId);
  // The caller was resolved from this user a moment ago; gone now means signed out.
  if (!user) throw new LedgerError('UNAUTHORIZED', 'missing, invalid or expired credentials');
  return profile(user);
}
