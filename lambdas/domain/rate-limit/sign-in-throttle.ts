/**
 * Throttles password guessing per email: after 5 failed sign-ins
 * for one email within a 15-minute window, every sign-in for it is refused with
 * RATE_LIMITED 429 and Retry-After until the window ends, without looking at the password,
 * so guessing goes no faster however many attempts are sent. A successful sign-in clears
 * the count. Unknown emails are counted like known ones, so the throttle tells nothing
 * about which accounts exist. The counter is keyed by a hash of the email, not the email.
 */
import { clear, counterKeys, increment, read } from '../../store/rate-counters.js';
import { emailCounterId, rateLimited, secondsUntil, windowAt } from './fixed-window.js';

export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_SECONDS = 15 * 60;

function keyAt(email: string, now: number) {
  const window = windowAt(now, FAILURE_WINDOW_SECONDS * 1000);
  return { key: counterKeys.signInFailures(emailCounterId(email), window.start), window };
}

export async function assertSignInAllowed(email: string, now = Date.now()): Promise<void> {
  const { key, window } = keyAt(email, now);
  if ((await read(key, 'failures')) < MAX_FAILURES) return;
  throw rateLimited('too many failed sign-ins for this email', secondsUntil(window.end, now));
}

export async function recordSignInFailure(email: string, now = Date.now()): Promise<void> {
  const { key, window } = keyAt(email, now);
  await increment(key, ['failures'], window.expiresAtS);
}

export async function clearSignInFailures(email: string, now = Date.now()): Promise<void> {
  await clear(keyAt(email, now).key);
}
