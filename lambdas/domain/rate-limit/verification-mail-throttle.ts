/**
 * Throttles POST /api/auth/send-verification-email per email, so the endpoint cannot be used
 * to flood someone's mailbox: at most 3 requests for one email per 15-minute window, then
 * RATE_LIMITED 429 with Retry-After until the window ends. Every request counts, for known
 * and unknown emails alike, so the throttle tells nothing about which accounts exist (the
 * same counter mechanism as sign-in-throttle.ts, keyed by a hash of the email).
 */
import { sha256B64u } from '@agent-ledger/protocol';
import { counterKeys, increment } from '../../adapters/aws/rate-limiter.js';
import { LedgerError } from '../errors.js';

export const MAX_VERIFICATION_MAILS = 3;
export const VERIFICATION_MAIL_WINDOW_SECONDS = 15 * 60;

/** Counts this request for `email`; throws RATE_LIMITED when it is over the limit. */
export async function countVerificationMail(email: string, now = Date.now()): Promise<void> {
  const windowMs = VERIFICATION_MAIL_WINDOW_SECONDS * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const windowEnd = windowStart + windowMs;
  const emailHash = sha256B64u(new TextEncoder().encode(email.trim().toLowerCase()));
  const { mails = 0 } = await increment(counterKeys.verificationMails(emailHash, windowStart), ['mails'], Math.ceil(windowEnd / 1000) + 60);
  if (mails <= MAX_VERIFICATION_MAILS) return;
  const retryAfter = String(Math.max(1, Math.ceil((windowEnd - now) / 1000)));
  throw new LedgerError('RATE_LIMITED', `too many verification mails for this email; retry after ${retryAfter} s`, {
    headers: { 'retry-after': retryAfter },
  });
}
