/** POST /api/auth/sign-up/email (docs/API.md §4.1): {token: null, user}; the verification link leads to LEDGER_PUBLIC_URL. */
import { signUp } from '../../domain/identity/sign-up.js';
import { sessionUser } from '../../domain/identity/user-view.js';
import { identityProvider } from '../../runtime/identity-provider.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { definePublicHandler } from '../define-public-handler.js';
import { clientAddress } from '../client-address.js';

export const handler = definePublicHandler(authRoutes.signUp, async ({ body, event }) => {
  const user = await signUp({ identity: identityProvider() }, body, clientAddress(event));
  return { body: { token: null, user: sessionUser(user) } };
});
