/**
 * Where the browser may be sent after social sign-in or email verification (docs/API.md §4.1
 * callbackURL).
 *
 * Policy: a path on the service's own origin (`/app/done`, resolved against
 * LEDGER_PUBLIC_URL), or an absolute http: or https: URL without user:password@ whose origin
 * is the service's own or one LEDGER_AUTH_CALLBACK_ORIGINS lists; at most 2048 characters
 * (schema). With the variable unset only same-origin URLs pass, so sign-in and verification
 * can never be used as an open redirect to a phishing page. The session token never travels
 * in this URL, only in the HttpOnly cookie on our own origin.
 */
import { config, publicUrl } from '../../config.js';
import { LedgerError } from '../../shared/errors.js';

interface CallbackPolicy {
  /** The service's public base URL: relative callbacks resolve against it, its origin is always allowed. */
  base: string;
  /** Further allowed origins (LEDGER_AUTH_CALLBACK_ORIGINS). */
  origins: readonly string[];
}

const configuredPolicy = (): CallbackPolicy => ({ base: publicUrl(), origins: config().authCallbackOrigins });

/**
 * The callback URL, absolute and normalized, when the policy allows it; VALIDATION_ERROR
 * otherwise. `field` names where it came from in the message (email verification takes it
 * from the query).
 */
export function checkCallbackUrl(raw: string, policy: CallbackPolicy = configuredPolicy(), field = 'body.callbackURL'): string {
  const invalid = (why: string) => new LedgerError('VALIDATION_ERROR', `${field}: ${why}`);
  const own = new URL(policy.base);
  // A path of our own: exactly one leading slash, so `//evil.test` and `/\evil.test` (which
  // browsers read as another host) are not paths.
  const relative = /^\/(?![/\\])/.test(raw);
  let url: URL;
  try {
    url = relative ? new URL(`${own.pathname.replace(/\/$/, '')}${raw}`, own.origin) : new URL(raw);
  } catch {
    throw invalid('must be a path on this service or an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('must be a path on this service or an absolute http(s) URL');
  if (url.username || url.password) throw invalid('must not carry credentials');
  if (url.origin !== own.origin && !policy.origins.includes(url.origin)) {
    throw invalid(`origin ${url.origin} is not allowed (this service's own origin, or one LEDGER_AUTH_CALLBACK_ORIGINS lists)`);
  }
  return url.href;
}

/** The callback URL with `error=<reason>` added, for failures after the provider's redirect. */
export function withError(callbackUrl: string, reason: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set('error', reason);
  return url.href;
}
