/** POST /api/auth/sign-up/email (SPEC.md §4.1): {token: null, user}; the verification link leads back to this origin. */
import { signUp } from '../../domain/identity/sign-up.js';
import { sessionUser } from '../../domain/identity/user-view.js';
import { identityProvider } from '../../runtime/identity-provider.js';
import { routes } from '../../routes/routes.js';
import { definePublicHandler } from '../define-public-handler.js';
import { requestOrigin } from './cookies.js';

export const handler = definePublicHandler(routes.signUp, async ({ body, event }) => {
  const user = await signUp({ identity: identityProvider() }, body, requestOrigin(event));
  return { body: { token: null, user: sessionUser(user) } };
});
