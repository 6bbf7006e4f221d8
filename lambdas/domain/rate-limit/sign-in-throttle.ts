/**
 * Throttles password guessing per email (identity issue, item 1): after 5 failed sign-ins
 * for one email within a 15-minute window, every sign-in for it is refused with
 * RATE_LIMITED 429 and Retry-After until the window ends, without looking at the password,
 * so guessing goes no faster however many attempts are sent. A successful sign-in clears
 * the count. Unknown emails are counted like known ones, so the throttle tells nothing
 * about which accounts exist. The counter is keyed by a hash of the email, not the email.
 */
import { sha256B64u } from '@agent-ledger/protocol';
import { clear, counterKeys, increment, read } from '../../adapters/aws/rate-limiter.js';
import { LedgerError } from '../errors.js';

export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_SECONDS = 15 * 60;

function keyAt(email: string, now: number) {
  const windowMs = FAILURE_WINDOW_SECONDS * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const emailHash = sha256B64u(new TextEncoder().encode(email.trim().toLowerCase()));
  return { key: counterKeys.signInFailures(emailHash, windowStart), windowEnd: windowStart + windowMs };
}

export async function assertSignInAllowed(email: string, now = Date.now()): Promise<void> {
  const { key, windowEnd } = keyAt(email, now);
  if ((await read(key, 'failures')) < MAX_FAILURES) return;
  const retryAfter = String(Math.max(1, Math.ceil((windowEnd - now) / 1000)));
  throw new LedgerError('RATE_LIMITED', `too many failed sign-ins for this email; retry after ${retryAfter} s`, {
    headers: { 'retry-after': retryAfter },
  });
}

export async function recordSignInFailure(email: string, now = Date.now()): Promise<void> {
  const { key, windowEnd } = keyAt(email, now);
  await increment(key, ['failures'], Math.ceil(windowEnd / 1000) + 60);
}

export async function clearSignInFailures(email: string, now = Date.now()): Promise<void> {
  await clear(keyAt(email, now).key);
}
