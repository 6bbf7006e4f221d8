/** GET /api/auth/dev-oauth/authorize: the development provider's consent page (local stack only, dev-oauth-page.ts). */
import { authRoutes } from '../../routes/route-table/auth.js';
import { definePublicHandler } from '../define-public-handler.js';
import { assertDevProviderEnabled, consentPage } from './dev-oauth-page.js';

export const handler = definePublicHandler(authRoutes.devOAuthAuthorize, async ({ query, route }) => {
  assertDevProviderEnabled(route.method, route.path);
  const { provider, redirect_uri, state, code_challenge, code_challenge_method } = query;
  return {
    body: consentPage({ provider, redirect_uri, state, code_challenge, code_challenge_method }),
    headers: { 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; form-action 'self'" },
  };
});
