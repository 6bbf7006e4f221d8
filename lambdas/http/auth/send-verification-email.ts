/**
 * POST /api/auth/send-verification-email {email, callbackURL?} (Better Auth's path): a new
 * verification mail for an unverified account; {status: true} whatever the email (no
 * account enumeration).
 */
import { resendVerificationEmail } from '../../domain/identity/email-verification.js';
import { routes } from '../../routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.sendVerificationEmail, async ({ body }) => {
  await resendVerificationEmail(body);
  return { body: { status: true as const } };
});
