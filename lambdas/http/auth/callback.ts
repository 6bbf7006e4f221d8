/**
 * GET /api/auth/callback/:provider: where the provider sends the browser back. Completes
 * social sign-in (domain/identity/social.ts), sets the session cookie and answers 302 to the
 * callbackURL given at the start; a declined or failed sign-in goes there too, with
 * `?error=<reason>`. A request that matches no sign-in in flight is UNAUTHORIZED.
 */
import { completeSocialSignIn } from '../../domain/identity/social.js';
import { identityProvider } from '../../runtime/identity-provider.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { definePublicHandler } from '../define-public-handler.js';
import { STATE_COOKIE, clearedStateCookie, cookieValue, sessionCookie } from './cookies.js';

export const handler = definePublicHandler(authRoutes.socialCallback, async ({ params, query, cookies, event }) => {
  const outcome = await completeSocialSignIn({ identity: identityProvider() }, {
    provider: params.provider,
    state: query.state,
    boundState: cookieValue(cookies, STATE_COOKIE),
    ...(query.code === undefined ? {} : { code: query.code }),
    ...(query.error === undefined ? {} : { error: query.error }),
  });
  const set = [clearedStateCookie(event)];
  if (outcome.session) set.push(sessionCookie(event, outcome.session.token, outcome.session.expiresAt));
  return { status: 302, body: '', headers: { location: outcome.location, 'cache-control': 'no-store' }, cookies: set };
});
