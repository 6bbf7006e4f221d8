/**
 * What the CLI says about the API token it holds (docs/CLI.md "API token expiry"): when it
 * expires, a warning from 7 days before, and why the service no longer accepts it (an
 * UNAUTHORIZED answer with `error.reason`, docs/API.md §7). Each points at the console's API
 * tokens page and `agent-ledger login`, the two steps that fix it.
 */
import { LedgerApiError } from '../sdk/errors.js';

/** How long before its expiry the token is warned about. */
const WARN_BEFORE_MS = 7 * 24 * 60 * 60 * 1000;

/** docs/API.md §7: why a token the service knows stopped working. */
export type TokenRejection = 'expired' | 'revoked' | 'rotated';
const REJECTIONS: readonly string[] = ['expired', 'revoked', 'rotated'];

/** The console's API tokens page of the service at `serviceUrl`. */
export function tokensPage(serviceUrl: string): string {
  return `${new URL(serviceUrl).origin}/tokens`;
}

const loginCommand = (serviceUrl: string) => `\`agent-ledger login --url ${serviceUrl}\``;

/** "2027-03-01 12:00 UTC" */
function utcMinute(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "89 days", "1 day", "5 hours", "12 minutes": a duration, rounded down. */
export function duration(ms: number): string {
  const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return plural(hours, 'hour');
  return plural(Math.floor(hours / 24), 'day');
}

/**
 * "expires 2027-03-01 12:00 UTC, in 89 days", "never expires" or "expired 2026-12-06 12:00 UTC";
 * undefined when the service did not say (`expires_at` absent: a service older than the field).
 */
export function expiryText(expiresAt: number | null | undefined, now = Date.now()): string | undefined {
  if (expiresAt === undefined) return undefined;
  if (expiresAt === null) return 'never expires';
  const left = expiresAt * 1000 - now;
  return left <= 0 ? `expired ${utcMinute(expiresAt)}` : `expires ${utcMinute(expiresAt)}, in ${duration(left)}`;
}

/** The warning from {@link WARN_BEFORE_MS} before the expiry on; undefined before that or without an expiry. */
export function expiryWarning(expiresAt: number | null | undefined, serviceUrl: string, now = Date.now()): string | undefined {
  if (expiresAt === undefined || expiresAt === null) return undefined;
  const left = expiresAt * 1000 - now;
  if (left > WARN_BEFORE_MS) return undefined;
  const when = left <= 0 ? `has expired (${utcMinute(expiresAt)})` : `expires in ${duration(left)} (${utcMinute(expiresAt)})`;
  return `the API token ${when}; make a new one at ${tokensPage(serviceUrl)} and run ${loginCommand(serviceUrl)}`;
}

/** Why the service refused the token, when `error` is its UNAUTHORIZED answer naming a reason. */
export function tokenRejection(error: unknown): TokenRejection | undefined {
  if (!(error instanceof LedgerApiError) || error.status !== 401 || error.reason === undefined) return undefined;
  return REJECTIONS.includes(error.reason) ? (error.reason as TokenRejection) : undefined;
}

/** What fixes a token the service refused for `reason`. */
function rejectionFix(reason: TokenRejection, serviceUrl: string): string {
  if (reason === 'rotated') return `run ${loginCommand(serviceUrl)} with its replacement, or make a new one at ${tokensPage(serviceUrl)}`;
  return `make a new one at ${tokensPage(serviceUrl)} and run ${loginCommand(serviceUrl)}`;
}

const REJECTION_TEXT: Record<TokenRejection, string> = {
  expired: 'the API token has expired',
  revoked: 'the API token was revoked',
  rotated: 'the API token was replaced by rotation and its grace period is over',
};

/** "the API token has expired; make a new one at …/tokens and run `agent-ledger login --url …`" */
export function rejectionAdvice(reason: TokenRejection, serviceUrl: string): string {
  return `${REJECTION_TEXT[reason]}; ${rejectionFix(reason, serviceUrl)}`;
}

/**
 * A token the service answered UNAUTHORIZED to, with or without a reason, and what fixes it:
 * "the API token is rejected: expired; make a new one at …/tokens and run `agent-ledger login …`".
 */
export function rejectedText(error: LedgerApiError, serviceUrl: string): string {
  const reason = tokenRejection(error);
  if (reason) return `the API token is rejected: ${reason}; ${rejectionFix(reason, serviceUrl)}`;
  return `the API token is rejected (${error.message}); make an API token at ${tokensPage(serviceUrl)} and run ${loginCommand(serviceUrl)}`;
}

/** A pasted token id (a UUID) instead of the token (`alt_` and 43 characters, docs/API.md §5). */
export function looksLikeTokenId(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
