/**
 * GET /api/auth/dev-oauth/continue: "Continue as <email>" on the development provider page
 * (local stack only). Like a real provider it sends the browser to the registered
 * redirect_uri, which must be this server's own callback for that provider, with a
 * one-time code and the state (RFC 6749 §4.1.2).
 */
import { issueDevCode } from '../../adapters/local/dev-oauth-codes.js';
import { LedgerError } from '../../shared/errors.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { definePublicHandler } from '../define-public-handler.js';
import { publicUrl } from '../../config.js';
import { CALLBACK_PATH_PREFIX } from './cookies.js';
import { assertDevProviderEnabled } from './dev-oauth-page.js';

export const handler = definePublicHandler(authRoutes.devOAuthContinue, async ({ query, route }) => {
  assertDevProviderEnabled(route.method, route.path);
  const redirect = new URL(query.redirect_uri);
  if (`${redirect.origin}${redirect.pathname}` !== `${publicUrl()}${CALLBACK_PATH_PREFIX}/${query.provider}`) {
    throw new LedgerError('VALIDATION_ERROR', 'query.redirect_uri: not a registered redirect URI of this provider');
  }
  const code = await issueDevCode({
    provider: query.provider,
    email: query.email,
    name: query.name,
    redirectUri: query.redirect_uri,
    codeChallenge: query.code_challenge,
  });
  redirect.searchParams.set('code', code);
  redirect.searchParams.set('state', query.state);
  return { status: 302, body: '', headers: { location: redirect.href, 'cache-control': 'no-store' } };
});
