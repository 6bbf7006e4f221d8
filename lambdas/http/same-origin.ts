/**
 * Cross-site request forgery (docs/API.md §5, session cookie): a browser attaches the session
 * cookie to any request to this service, whichever page makes it. SameSite keeps other
 * *sites* out, but not a sibling origin of the same site (another port of 127.0.0.1, a
 * sibling subdomain of a custom domain), whose plain form POST retired agents' keys, joined
 * users to an attacker's organization and minted API tokens in their name. So a write
 * (POST, PATCH, PUT, DELETE) authenticated by the cookie must come from this service's own
 * pages, and must be JSON even without a body (a form cannot send that content type without
 * a CORS preflight, which this service never grants).
 *
 * "Its own pages": the browser's `Sec-Fetch-Site` is `same-origin` (or `none`: typed by the
 * user, not a page); a browser that sends no Sec-Fetch-Site must send an `Origin` equal to
 * the service's own, LEDGER_PUBLIC_URL's (locally the listening origin; without it, the one
 * the request reached, which a forging page cannot choose). Bearer tokens are not ambient
 * credentials: a page cannot make the browser add them, so they are not checked here.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { config } from '../config.js';
import { LedgerError } from '../shared/errors.js';
import { requestOrigin } from './auth/cookies.js';
import { JSON_CONTENT_TYPE, headerValue } from './json-body.js';

const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** The origin this service's pages are served from. */
function ownOrigin(event: APIGatewayProxyEventV2): string {
  const configured = config().publicUrl;
  return configured === undefined ? requestOrigin(event) : new URL(configured).origin;
}

/**
 * Throws FORBIDDEN 403 for a cookie-authenticated write from another origin, and
 * VALIDATION_ERROR 400 for one that is not JSON; does nothing for reads.
 *
 * @example
 * if (credential.viaCookie) assertSameOriginWrite(event);
 */
export function assertSameOriginWrite(event: APIGatewayProxyEventV2): void {
  const method = (event.requestContext?.http?.method ?? '').toUpperCase();
  if (!WRITES.has(method)) return;
  const site = headerValue(event, 'sec-fetch-site');
  if (site !== undefined) {
    if (site !== 'same-origin' && site !== 'none') {
      throw new LedgerError('FORBIDDEN', `a ${method} authenticated by the session cookie must come from this service's own pages (Sec-Fetch-Site is "${site}"); use an Authorization: Bearer token from elsewhere`);
    }
  } else {
    const origin = headerValue(event, 'origin');
    const own = ownOrigin(event);
    if (origin !== own) {
      throw new LedgerError('FORBIDDEN', `a ${method} authenticated by the session cookie must come from this service's own pages (Origin ${origin === undefined ? 'missing' : `"${origin}"`}, expected "${own}"); use an Authorization: Bearer token from elsewhere`);
    }
  }
  const contentType = headerValue(event, 'content-type');
  if (contentType === undefined || !JSON_CONTENT_TYPE.test(contentType)) {
    throw new LedgerError('VALIDATION_ERROR', `a ${method} authenticated by the session cookie must have content-type application/json, even without a body (got ${contentType === undefined ? 'none' : `"${contentType}"`})`);
  }
}
