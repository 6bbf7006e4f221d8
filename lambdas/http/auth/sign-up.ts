/** POST /api/auth/sign-up/email (SPEC.md §4.1): {token: null, user}; the verification link leads to LEDGER_PUBLIC_URL. */
import { signUp } from '../../domain/identity/sign-up.js';
import { sessionUser } from '../../domain/identity/user-view.js';
import { routes } from '../../routes.js';
import { defineHandler } from '../define-handler.js';
import { clientAddress } from '../client-address.js';

export const handler = defineHandler(routes.signUp, async ({ body, event }) => {
  const user = await signUp(body, clientAddress(event));
  return { body: { token: null, user: sessionUser(user) } };
});
