/**
 * Throttles password guessing per email: at most 5 wrong passwords for one email are ever
 * evaluated within a 15-minute window; once they are used up, every attempt is refused with
 * RATE_LIMITED 429 and Retry-After until the window ends, without looking at the password.
 *
 * Each attempt reserves a slot atomically before the password is checked
 * (store/rate-counters.ts reserve), so concurrent guesses cannot slip past the count:
 * of 32 parallel attempts, 5 are evaluated. A correct password gives its own slot back, so
 * signing in does not use up the window, but it does not wipe earlier failures either:
 * clearing them would let concurrent guesses in flight take fresh slots. Unknown emails are
 * counted like known ones, so the throttle tells nothing about which accounts exist. The
 * counter is keyed by a hash of the email, not the email.
 */
import { counterKeys, release, reserve } from '../../store/rate-counters.js';
import { emailCounterId, rateLimited, secondsUntil, windowAt } from './fixed-window.js';

export const MAX_FAILURES = 5;
const FAILURE_WINDOW_SECONDS = 15 * 60;

function keyAt(email: string, now: number) {
  const window = windowAt(now, FAILURE_WINDOW_SECONDS * 1000);
  return { key: counterKeys.signInFailures(emailCounterId(email), window.start), window };
}

/** Takes one of the window's attempts for `email` before its password is checked; RATE_LIMITED when none is left. */
export async function reserveSignInAttempt(email: string, now = Date.now()): Promise<void> {
  const { key, window } = keyAt(email, now);
  if (await reserve(key, 'failures', MAX_FAILURES, window.expiresAtS)) return;
  throw rateLimited('too many failed sign-ins for this email', secondsUntil(window.end, now));
}

/** After a correct password: this attempt was not a failure, so its slot is given back. */
export async function releaseSignInAttempt(email: string, now = Date.now()): Promise<void> {
  await release(keyAt(email, now).key, 'failures');
}
