/**
 * GET /api/auth/verify-email?token=…[&callbackURL=…] (Better Auth's path; docs/API.md §4.1 "a
 * verification email is sent"): the link of the verification mail. For API clients:
 * {status: true}, or a 302 to callbackURL when one passes the callback policy; a bad token is
 * VALIDATION_ERROR 400. A browser (Accept names text/html) is sent to the console instead of
 * a JSON page: to callbackURL or /sign-in?verified=1, and on failure to
 * /sign-in?verify_error=expired|used|unknown, which says why. The paths are relative: the
 * console is on the API's origin, locally and behind CloudFront.
 */
import { verifyEmail } from '../../domain/identity/email-verification.js';
import { identityProvider } from '../../runtime/identity-provider.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { LedgerError } from '../../shared/errors.js';
import { definePublicHandler } from '../define-public-handler.js';

const redirect = (location: string) => ({ status: 302, body: { status: true as const }, headers: { location, 'cache-control': 'no-store' } });

export const handler = definePublicHandler(authRoutes.verifyEmail, async ({ query, headers }) => {
  const browser = (headers.accept ?? '').toLowerCase().includes('text/html');
  const outcome = await verifyEmail({ identity: identityProvider() }, { token: query.token, callbackURL: query.callbackURL });
  if (outcome.failure !== undefined) {
    if (browser) return redirect(`/sign-in?verify_error=${outcome.failure}`);
    throw new LedgerError('VALIDATION_ERROR', 'query.token: invalid, expired or already used verification token');
  }
  if (outcome.location !== undefined) return redirect(outcome.location);
  return browser ? redirect('/sign-in?verified=1') : { body: { status: true as const } };
});
