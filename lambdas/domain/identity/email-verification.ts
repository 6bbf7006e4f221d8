/**
 * Email verification (docs/API.md §4.1 "a verification email is sent"; Better Auth's
 * /api/auth/verify-email and /api/auth/send-verification-email). A verified address is what
 * lets a user see and accept invitations addressed to it (orgs/invitations.ts): without it,
 * anyone who signed up first with another person's email could take that person's seat.
 *
 * The mail and its token are the identity provider's (ports.ts): a single-use 24-hour link
 * locally, Cognito's code in AWS. Here: the link's address, the callbackURL policy, the
 * no-enumeration answer of re-sending, and the user item's email_verified.
 */
import { findUserByEmail, markEmailVerified } from '../../store/users.js';
import { publicUrl } from '../../config.js';
import type { Ports, VerificationFailure, VerificationUrl } from '../ports.js';
import { countVerificationMail } from '../rate-limit/verification-mail-throttle.js';
import { checkCallbackUrl } from './callback-url.js';

const VERIFY_EMAIL_PATH = '/api/auth/verify-email';

/**
 * The verification link, carrying callbackURL when one was given (already checked). Built on
 * LEDGER_PUBLIC_URL only: a link built from the request's Host header would let anyone who
 * signs up or asks for a resend with `Host: attacker.example` have the real token mailed
 * inside a link to their own server.
 */
export function verificationUrl(callbackUrl?: string): VerificationUrl {
  return (token) => {
    const url = new URL(`${publicUrl()}${VERIFY_EMAIL_PATH}`);
    url.searchParams.set('token', token);
    if (callbackUrl !== undefined) url.searchParams.set('callbackURL', callbackUrl);
    return url.href;
  };
}

/**
 * GET /api/auth/verify-email: redeems the token and marks the user verified. Answers where
 * to send the browser when a callbackURL was given (checked before the token is spent), or why
 * the token verified nothing (the handler turns that into VALIDATION_ERROR for API clients and
 * into the console's sign-in page for a browser).
 */
export async function verifyEmail(
  { identity }: Pick<Ports, 'identity'>,
  input: { token: string; callbackURL?: string | undefined },
  now = Date.now(),
): Promise<{ location?: string; failure?: undefined } | { failure: VerificationFailure; location?: undefined }> {
  const location = input.callbackURL === undefined ? undefined : checkCallbackUrl(input.callbackURL, undefined, 'query.callbackURL');
  const confirmation = await identity.confirmEmail(input.token);
  if ('failure' in confirmation) return { failure: confirmation.failure };
  const user = await findUserByEmail(confirmation.email);
  // No user item yet (sign-up's second step failed): the provider now says verified, and the
  // user item made at the first sign-in takes that over (users.ts userForIdentity).
  if (user && !user.email_verified) await markEmailVerified(user.user_id, now);
  return location === undefined ? {} : { location };
}

/**
 * POST /api/auth/send-verification-email: a new mail for an unverified account. The answer
 * is the same for unknown, verified and unverified emails (no account enumeration); only
 * the per-email throttle and a malformed callbackURL answer otherwise, for every email alike.
 */
export async function resendVerificationEmail({ identity }: Pick<Ports, 'identity'>, input: { email: string; callbackURL?: string | undefined }, now = Date.now()): Promise<void> {
  const email = input.email.trim().toLowerCase();
  const callbackUrl = input.callbackURL === undefined ? undefined : checkCallbackUrl(input.callbackURL);
  await countVerificationMail(email, now);
  const user = await findUserByEmail(email);
  if (!user || user.email_verified) return;
  await identity.resendVerification(email, verificationUrl(callbackUrl));
}
