/**
 * Where social sign-in may send the browser back to (SPEC.md §4.1 callbackURL).
 *
 * Policy: an absolute http: or https: URL without user:password@, at most 2048 characters
 * (schema); when LEDGER_AUTH_CALLBACK_ORIGINS lists origins, its origin must be one of them
 * (set it in production so the sign-in cannot be used as an open redirect to a phishing
 * page). The session token never travels in this URL, only in the HttpOnly cookie on our
 * own origin, so even an unlisted target learns no credential.
 */
import { config } from '../../config.js';
import { LedgerError } from '../../shared/errors.js';

/**
 * The callback URL, normalized, when the policy allows it; VALIDATION_ERROR otherwise. `field`
 * names where it came from in the message (email verification takes it from the query).
 */
export function checkCallbackUrl(
  raw: string,
  allowedOrigins: readonly string[] = config().authCallbackOrigins,
  field = 'body.callbackURL',
): string {
  const invalid = (why: string) => new LedgerError('VALIDATION_ERROR', `${field}: ${why}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('must be an absolute http(s) URL');
  if (url.username || url.password) throw invalid('must not carry credentials');
  if (allowedOrigins.length > 0 && !allowedOrigins.includes(url.origin)) throw invalid(`origin ${url.origin} is not allowed`);
  return url.href;
}

/** The callback URL with `error=<reason>` added, for failures after the provider's redirect. */
export function withError(callbackUrl: string, reason: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set('error', reason);
  return url.href;
}
