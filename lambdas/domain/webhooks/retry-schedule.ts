/**
 * When a failed delivery is tried again (docs/WEBHOOKS.md): exponential backoff over about a
 * day, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h after attempts 1 to 6, each stretched by up to
 * 20% of random jitter so the retries of many deliveries that failed together (an endpoint
 * outage) do not return together. Attempt 7 is the last; after it the delivery is `failed`.
 */
const BACKOFF_SECONDS = [60, 300, 1800, 7200, 21600, 43200] as const;

/** Scheduled attempts per delivery: the first and one after each backoff step. */
export const MAX_SCHEDULED_ATTEMPTS = BACKOFF_SECONDS.length + 1;

/** Jitter: a wait is stretched by up to this fraction. */
const JITTER = 0.2;

/** Seconds to wait after failed attempt `attempt` (1-based), or null after the last one. `random` is in [0, 1). */
export function retryDelaySeconds(attempt: number, random: number = Math.random()): number | null {
  const base = BACKOFF_SECONDS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + JITTER * random));
}

/** A webhook whose deliveries have all failed for this long is disabled (docs/WEBHOOKS.md). */
export const DISABLE_AFTER_MS = 3 * 24 * 60 * 60 * 1000;
