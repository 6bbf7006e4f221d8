/**
 * GET /api/auth/verify-email?token=…[&callbackURL=…] (Better Auth's path; docs/API.md §4.1 "a
 * verification email is sent"): the link of the verification mail. {status: true}, or a 302
 * to callbackURL when one passes the callback policy; a bad token is VALIDATION_ERROR 400.
 */
import { verifyEmail } from '../../domain/identity/email-verification.js';
import { identityProvider } from '../../runtime/identity-provider.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { definePublicHandler } from '../define-public-handler.js';

export const handler = definePublicHandler(authRoutes.verifyEmail, async ({ query }) => {
  const { location } = await verifyEmail({ identity: identityProvider() }, { token: query.token, callbackURL: query.callbackURL });
  if (location === undefined) return { body: { status: true as const } };
  return { status: 302, body: { status: true as const }, headers: { location, 'cache-control': 'no-store' } };
});
