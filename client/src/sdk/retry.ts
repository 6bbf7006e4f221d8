/**
 * Backoff for RATE_LIMITED (docs/API.md §7, §8: "clients should back off exponentially"): the
 * wait doubles per attempt from `baseDelayMs`, with full jitter so that many clients do not
 * retry in lock-step, but never less than the server's Retry-After.
 */
export interface RetryPolicy {
  /** Attempts in total, the first included (default 5). */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 10_000 };

/**
 * The wait before attempt `attempt + 1` (attempt counts from 1), honouring Retry-After.
 *
 * @example
 * await sleep(backoffMs(DEFAULT_RETRY, attempt, error.retryAfterMs));
 */
export function backoffMs(policy: RetryPolicy, attempt: number, retryAfterMs: number | undefined, random = Math.random): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.min(policy.maxDelayMs, Math.max(retryAfterMs ?? 0, jittered));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
