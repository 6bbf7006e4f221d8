/**
 * The per-organization request rate limit (docs/API.md §7 RATE_LIMITED, §8):
 * LEDGER_RATE_LIMIT_RPS requests per second on average, with bursts.
 *
 * Two fixed windows counted by one shared counter item (rate-counters.ts):
 * - a 10-second window holds at most 10 × rps requests: the sustained rate;
 * - each second inside it holds at most 2 × rps: the burst allowance.
 * With the default 100: 200 in any one second, 1000 per 10 seconds. Callers without an
 * organization (before onboarding) are counted per user.
 *
 * Without a write per request (docs/COST.md, Rate limit): each process (a Lambda container)
 * reserves a batch of requests of the current second with one atomic ADD on the shared
 * counter, and hands them out from memory until the second ends. Its first reservation of a
 * second is 1 request, each next one twice the last, up to B = max(1, floor(rps / 10)). A
 * reservation is granted only the part of its batch that the counter's values after the ADD
 * leave within both limits, so the limits hold exactly across all processes: no overshoot.
 * The price is the other way round: requests a process reserved and did not use are lost
 * when the second ends; doubling from 1 keeps that below what the process used in the second
 * (and below B). A fixed batch of B lost up to B − 1 per process and second: every route is a
 * function of its own in AWS, so a client calling 21 routes in one second had the 2 × rps
 * burst reserved away (20 × B) and was refused far below its rate. A refused reservation counts on the shared
 * counter (a client that keeps hammering keeps the window closed); the refusal is then
 * answered from memory until its Retry-After has passed, without further writes.
 */
import { config } from '../../config.js';
import { logger } from '../../logger.js';
import { counterKeys, increment } from '../../store/rate-counters.js';
import type { Caller } from '../auth/caller.js';
import { rateLimited, secondsUntil, windowAt } from './fixed-window.js';

export const WINDOW_SECONDS = 10;
export const BURST_FACTOR = 2;

/** Processes remember this many organizations' reservations (the least recently seen go). */
const MAX_BUCKETS = 10_000;

/** The most requests one shared-counter write reserves. */
export function batchSize(rps: number): number {
  return Math.max(1, Math.floor(rps / 10));
}

/**
 * Pure: how many of `batch` just-added requests the limits grant, given the counters' values
 * after the ADD; and until when a refusal holds (the window's end when the window is used
 * up, else the second's end).
 */
export function grant(counts: { window: number; second: number }, batch: number, rps: number, now: number): { granted: number; refusedUntil: number } {
  const windowLeft = rps * WINDOW_SECONDS - (counts.window - batch);
  const secondLeft = rps * BURST_FACTOR - (counts.second - batch);
  const granted = Math.max(0, Math.min(batch, windowLeft, secondLeft));
  const refusedUntil = windowLeft <= 0 ? windowAt(now, WINDOW_SECONDS * 1000).end : Math.floor(now / 1000) * 1000 + 1000;
  return { granted, refusedUntil };
}

interface LocalBucket {
  /** The second these tokens belong to (Unix ms of its start). */
  second: number;
  tokens: number;
  /** Reservations this process made in this second: the next one is 2^reservations requests, at most batchSize. */
  reservations: number;
  /** Set after a refused reservation: refuse from memory until then (Unix ms). */
  refusedUntil?: number;
  reserving?: Promise<void>;
}

const buckets = new Map<string, LocalBucket>();

function bucketOf(caller: Pick<Caller, 'orgId' | 'userId'>): string {
  return caller.orgId ? `ORG#${caller.orgId}` : `USER#${caller.userId}`;
}

/**
 * The process's bucket of the organization for the second starting at `second`. A request
 * that waited past a second boundary (behind a reservation) counts in the newer second:
 * buckets never go back in time, or two seconds would keep replacing each other's tokens.
 */
function localBucket(name: string, second: number): LocalBucket {
  let bucket = buckets.get(name);
  if (!bucket || bucket.second < second) {
    // A refusal that runs to the window's end outlives its second.
    bucket = { second, tokens: 0, reservations: 0, ...(bucket?.refusedUntil !== undefined && bucket.refusedUntil > second ? { refusedUntil: bucket.refusedUntil } : {}) };
  }
  buckets.delete(name);
  buckets.set(name, bucket);
  for (const oldest of buckets.keys()) {
    if (buckets.size <= MAX_BUCKETS) break;
    buckets.delete(oldest);
  }
  return bucket;
}

/** One shared-counter write: reserves a batch of the bucket's second into `bucket`. */
async function reserve(name: string, bucket: LocalBucket, rps: number): Promise<void> {
  const now = bucket.second;
  const window = windowAt(now, WINDOW_SECONDS * 1000);
  const secondAttribute = `s${Math.floor((now - window.start) / 1000)}`;
  const batch = Math.min(batchSize(rps), 2 ** bucket.reservations);
  bucket.reservations += 1;
  let counts: Record<string, number>;
  try {
    counts = await increment(counterKeys.requestRate(name, window.start), ['n', secondAttribute], window.expiresAtS, batch);
  } catch (error) {
    // The limiter protects the service and must not become the reason it is down; API
    // Gateway's stage throttle remains.
    logger.warn('rate limit counter unavailable; request let through', { error: error as Error });
    bucket.tokens += 1;
    return;
  }
  const { granted, refusedUntil } = grant({ window: counts.n ?? 0, second: counts[secondAttribute] ?? 0 }, batch, rps, now);
  bucket.tokens += granted;
  if (granted === 0) bucket.refusedUntil = refusedUntil;
}

/**
 * Counts this request against the caller's organization; RATE_LIMITED 429 with Retry-After
 * when over.
 */
export async function enforceRequestRate(caller: Pick<Caller, 'orgId' | 'userId'>, now = Date.now()): Promise<void> {
  const rps = config().rateLimitRps;
  const name = bucketOf(caller);
  const second = Math.floor(now / 1000) * 1000;
  for (;;) {
    const bucket = localBucket(name, second);
    if (bucket.refusedUntil !== undefined && now < bucket.refusedUntil) {
      throw rateLimited('organization request rate limit exceeded', secondsUntil(bucket.refusedUntil, now));
    }
    if (bucket.tokens > 0) {
      bucket.tokens -= 1;
      return;
    }
    // One reservation at a time per organization and process; the others wait for its tokens.
    if (!bucket.reserving) {
      bucket.reserving = reserve(name, bucket, rps).finally(() => {
        bucket.reserving = undefined;
      });
    }
    await bucket.reserving;
  }
}

/** Forgets every reservation of this process (tests that move the clock around). */
export function resetRequestRateForTests(): void {
  buckets.clear();
}
