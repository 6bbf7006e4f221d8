/**
 * POST /api/auth/sign-in/social (docs/API.md §4.1): {url, redirect: true}. The provider sends
 * the browser back to /api/auth/callback/<provider> on LEDGER_PUBLIC_URL (never on the
 * request's Host header; the Cognito app client registers the same URL, lib/identity.ts).
 */
import { publicUrl } from '../../config.js';
import { startSocialSignIn } from '../../domain/identity/social.js';
import { identityProvider } from '../../runtime/identity-provider.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { definePublicHandler } from '../define-public-handler.js';
import { CALLBACK_PATH_PREFIX, stateCookie } from './cookies.js';

export const handler = definePublicHandler(authRoutes.signInSocial, async ({ body, event }) => {
  const redirectUri = `${publicUrl()}${CALLBACK_PATH_PREFIX}/${body.provider}`;
  const started = await startSocialSignIn({ identity: identityProvider() }, { provider: body.provider, callbackURL: body.callbackURL, redirectUri });
  return { body: { url: started.url, redirect: true as const }, cookies: [stateCookie(event, started.state)] };
});
