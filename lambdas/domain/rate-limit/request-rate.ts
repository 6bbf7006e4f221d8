/**
 * The per-organization request rate limit (SPEC.md §7 RATE_LIMITED, §8):
 * LEDGER_RATE_LIMIT_RPS requests per second on average, with bursts.
 *
 * Two fixed windows counted by one atomic write (rate-counters.ts):
 * - a 10-second window holds at most 10 × rps requests: the sustained rate;
 * - each second inside it holds at most 2 × rps: the burst allowance.
 * With the default 100: 200 in any one second, 1000 per 10 seconds. Refused requests count
 * too, so a client that keeps hammering stays refused until the window turns; Retry-After
 * says when that is (whole seconds, at least 1). Callers without an organization (before
 * onboarding) are counted per user.
 */
import { config } from '../../config.js';
import { logger } from '../../logger.js';
import { counterKeys, increment } from '../../store/rate-counters.js';
import type { Caller } from '../auth/caller.js';
import { rateLimited, secondsUntil, windowAt } from './fixed-window.js';

export const WINDOW_SECONDS = 10;
export const BURST_FACTOR = 2;

export interface RateDecision {
  allowed: boolean;
  /** Seconds until a request may succeed again; set when refused. */
  retryAfterSeconds?: number;
}

/** Pure: whether counts after this request stay within the limits at `now`. */
export function decide(counts: { window: number; second: number }, rps: number, now: number): RateDecision {
  if (counts.window > rps * WINDOW_SECONDS) {
    return { allowed: false, retryAfterSeconds: secondsUntil(windowAt(now, WINDOW_SECONDS * 1000).end, now) };
  }
  if (counts.second > rps * BURST_FACTOR) return { allowed: false, retryAfterSeconds: 1 };
  return { allowed: true };
}

function bucketOf(caller: Pick<Caller, 'orgId' | 'userId'>): string {
  return caller.orgId ? `ORG#${caller.orgId}` : `USER#${caller.userId}`;
}

/**
 * Counts this request against the caller's organization; RATE_LIMITED 429 with Retry-After
 * when over. A failing counter lets the request through (logged): the limiter protects the
 * service and must not become the reason it is down; API Gateway's stage throttle remains.
 */
export async function enforceRequestRate(caller: Pick<Caller, 'orgId' | 'userId'>, now = Date.now()): Promise<void> {
  const rps = config().rateLimitRps;
  const window = windowAt(now, WINDOW_SECONDS * 1000);
  const second = `s${Math.floor((now - window.start) / 1000)}`;
  let counts: Record<string, number>;
  try {
    counts = await increment(counterKeys.requestRate(bucketOf(caller), window.start), ['n', second], window.expiresAtS);
  } catch (error) {
    logger.warn('rate limit counter unavailable; request let through', { error: error as Error });
    return;
  }
  const decision = decide({ window: counts.n ?? 0, second: counts[second] ?? 0 }, rps, now);
  if (!decision.allowed) throw rateLimited('organization request rate limit exceeded', decision.retryAfterSeconds ?? 1);
}
