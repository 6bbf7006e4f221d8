/**
 * Throttles POST /api/auth/send-verification-email per email, so the endpoint cannot be used
 * to flood someone's mailbox: at most 3 requests for one email per 15-minute window, then
 * RATE_LIMITED 429 with Retry-After until the window ends. Every request counts, for known
 * and unknown emails alike, so the throttle tells nothing about which accounts exist (the
 * same counter mechanism as sign-in-throttle.ts, keyed by a hash of the email).
 */
import { counterKeys, increment } from '../../store/rate-counters.js';
import { emailCounterId, rateLimited, secondsUntil, windowAt } from './fixed-window.js';

export const MAX_VERIFICATION_MAILS = 3;
const VERIFICATION_MAIL_WINDOW_SECONDS = 15 * 60;

/** Counts this request for `email`; throws RATE_LIMITED when it is over the limit. */
export async function countVerificationMail(email: string, now = Date.now()): Promise<void> {
  const window = windowAt(now, VERIFICATION_MAIL_WINDOW_SECONDS * 1000);
  const { mails = 0 } = await increment(counterKeys.verificationMails(emailCounterId(email), window.start), ['mails'], window.expiresAtS);
  if (mails <= MAX_VERIFICATION_MAILS) return;
  throw rateLimited('too many verification mails for this email', secondsUntil(window.end, now));
}
