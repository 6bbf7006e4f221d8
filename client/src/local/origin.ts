/**
 * The origin of a service URL (RFC 6454): `scheme://host[:port]`, the host lowercase (and an
 * international name in its ASCII form), the scheme's default port left out, no path, query or
 * user info. An API token belongs to the origin that issued it: `credentials` keeps one token
 * per origin, and the CLI sends each only there (docs/CLI.md "Several services").
 */
import { CliError } from '../cli/errors.js';

/** The origin of an http(s) URL; throws a CliError for anything else. */
export function serviceOrigin(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    throw new CliError(`not an absolute http(s) URL: "${String(url)}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new CliError(`not an http(s) URL: "${parsed.href}"`);
  // WHATWG URL's origin of a special scheme is already normalised: lowercase host, default port dropped.
  return parsed.origin;
}

/** The origin of `url`, or undefined when it is not an http(s) URL. */
export function originOrUndefined(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return serviceOrigin(url);
  } catch {
    return undefined;
  }
}
