/**
 * POST /api/auth/send-verification-email {email, callbackURL?} (Better Auth's path): a new
 * verification mail for an unverified account; {status: true} whatever the email (no
 * account enumeration).
 */
import { resendVerificationEmail } from '../../domain/identity/email-verification.js';
import { identityProvider } from '../../runtime/identity-provider.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { definePublicHandler } from '../define-public-handler.js';

export const handler = definePublicHandler(authRoutes.sendVerificationEmail, async ({ body }) => {
  await resendVerificationEmail({ identity: identityProvider() }, body);
  return { body: { status: true as const } };
});
