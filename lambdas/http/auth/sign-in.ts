/** POST /api/auth/sign-in/email (docs/API.md §4.1): {redirect: false, token, user}, and the session cookie. */
import { signInWithPassword } from '../../domain/identity/sign-in.js';
import { sessionUser } from '../../domain/identity/user-view.js';
import { identityProvider } from '../../runtime/identity-provider.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { definePublicHandler } from '../define-public-handler.js';
import { clientAddress } from '../client-address.js';
import { sessionCookie } from './cookies.js';

export const handler = definePublicHandler(authRoutes.signIn, async ({ body, event }) => {
  const { user, session } = await signInWithPassword({ identity: identityProvider() }, body, clientAddress(event));
  return {
    body: { redirect: false as const, token: session.token, user: sessionUser(user) },
    cookies: [sessionCookie(event, session.token, session.expiresAt)],
  };
});
