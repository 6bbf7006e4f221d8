/** POST /api/auth/sign-in/email (SPEC.md §4.1): {redirect: false, token, user}, and the session cookie. */
import { signInWithPassword } from '../../domain/identity/sign-in.js';
import { sessionUser } from '../../domain/identity/user-view.js';
import { routes } from '../../routes.js';
import { defineHandler } from '../define-handler.js';
import { clientAddress } from '../client-address.js';
import { sessionCookie } from './cookies.js';

export const handler = defineHandler(routes.signIn, async ({ body, event }) => {
  const { user, session } = await signInWithPassword(body, clientAddress(event));
  return {
    body: { redirect: false as const, token: session.token, user: sessionUser(user) },
    cookies: [sessionCookie(event, session.token, session.expiresAt)],
  };
});
