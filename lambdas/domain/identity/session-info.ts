/** GET /api/auth/get-session and GET /v1/auth/me (docs/API.md §4.1, §2.7). */
import { getToken } from '../../store/tokens.js';
import { getUser } from '../../store/users.js';
import { getOrg } from '../../store/orgs.js';
import type { Caller } from '../auth/caller.js';
import { LedgerError } from '../../shared/errors.js';
import { profile, sessionUser, type Profile, type SessionUser } from './user-view.js';

interface SessionInfo {
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

/**
 * The profile, with the organization's name and the credential the request came with
 * (its expiry in Unix seconds, like the token answers of docs/API.md §4.1): what a client
 * shows about the token it holds.
 */
export async function currentProfile(caller: Caller): Promise<Profile> {
  const [user, org] = await Promise.all([getUser(caller.userId), caller.orgId ? getOrg(caller.orgId) : undefined]);
  // The caller was resolved from this user a moment ago; gone now means signed out.
  if (!user) throw new LedgerError('UNAUTHORIZED', 'missing, invalid or expired credentials');
  const shown = profile(user);
  if (shown.current_organization && org && org.org_id === shown.current_organization.org_id) shown.current_organization.org_name = org.org_name;
  const expiresAt = caller.tokenExpiresAt ?? null;
  shown.credential = {
    kind: caller.tokenKind,
    token_id: caller.tokenId,
    name: caller.tokenName ?? null,
    expires_at: expiresAt === null ? null : Math.floor(expiresAt / 1000),
  };
  return shown;
}
