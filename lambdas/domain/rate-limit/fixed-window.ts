/**
 * Shared pieces of the fixed-window throttles (docs/API.md §7 RATE_LIMITED, §8): which window a
 * moment falls in, the per-email counter identity, and the 429 answer with Retry-After.
 */
import { sha256B64u } from '@agent-ledger/protocol';
import { LedgerError } from '../../shared/errors.js';

interface Window {
  start: number;
  end: number;
  /** DynamoDB TTL (Unix seconds) for the window's counter: a minute after it ends. */
  expiresAtS: number;
}

/** A UTC day, the window of the daily quotas (new agent keys, kept refused attempts). */
export const DAY_MS = 86_400_000;

export function windowAt(now: number, windowMs: number): Window {
  const start = Math.floor(now / windowMs) * windowMs;
  return { start, end: start + windowMs, expiresAtS: Math.ceil((start + windowMs) / 1000) + 60 };
}

/** Counters per email are keyed by a hash of the normalized address, never the address. */
export function emailCounterId(email: string): string {
  return sha256B64u(new TextEncoder().encode(email.trim().toLowerCase()));
}

/** Whole seconds until `until`, at least 1 (RFC 9110 §10.2.3 Retry-After). */
export function secondsUntil(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}

/** RATE_LIMITED 429 with its Retry-After header. */
export function rateLimited(reason: string, retryAfterSeconds: number): LedgerError {
  const retryAfter = String(retryAfterSeconds);
  return new LedgerError('RATE_LIMITED', `${reason}; retry after ${retryAfter} s`, { headers: { 'retry-after': retryAfter } });
}
