/**
 * Unauthenticated sign-up and sign-in are limited per client address as well as per email
 * (sign-in-throttle.ts): the per-email throttle stops guessing one account's password, not
 * trying one common password on many accounts from one place, nor mass account creation.
 * Per address (API Gateway's sourceIp; locally the socket's address), at most 100 sign-ins
 * and 50 sign-ups per 10-minute window, then RATE_LIMITED 429 with Retry-After until the
 * window ends. Generous enough for an office behind one NAT address; every request counts,
 * refused ones included. Counters are keyed by a hash of the address, never the address.
 */
import { sha256B64u } from '@agent-ledger/protocol';
import { counterKeys, increment } from '../../adapters/aws/rate-limiter.js';
import { rateLimited, secondsUntil, windowAt } from './fixed-window.js';

export const CLIENT_WINDOW_SECONDS = 10 * 60;
export const CLIENT_LIMITS = { 'sign-in': 100, 'sign-up': 50 } as const;

export type UnauthenticatedAction = keyof typeof CLIENT_LIMITS;

/** Counts one `action` from `address`; throws RATE_LIMITED when the address is over its limit. */
export async function countClientAttempt(action: UnauthenticatedAction, address: string | undefined, now = Date.now()): Promise<void> {
  const window = windowAt(now, CLIENT_WINDOW_SECONDS * 1000);
  const addressHash = sha256B64u(new TextEncoder().encode(address ?? 'unknown'));
  const { attempts = 0 } = await increment(counterKeys.clientAddress(action, addressHash, window.start), ['attempts'], window.expiresAtS);
  if (attempts <= CLIENT_LIMITS[action]) return;
  throw rateLimited(`too many ${action} requests from this address`, secondsUntil(window.end, now));
}
