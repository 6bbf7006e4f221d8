/**
 * How the built console (console/dist) is served, shared by the local stack
 * (local/console-assets.ts) and CloudFront (lib/console.ts), so both answer alike: which paths
 * are the API's, the security headers, and how long each file may be cached.
 */

/** Paths that belong to the API (docs/API.md §9, §4.10); everything else is the console. */
export const API_PREFIXES = ['/v1/', '/api/', '/.well-known/'] as const;

export function isApiPath(path: string): boolean {
  return path === '/v1' || path === '/api' || API_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/**
 * Where the service hands out its own client (docs/CLI.md "Installing the CLI from the service"):
 * the CLI's npm tarball, the Python wheel and index.json (lib/client-files/build.ts). A path with a
 * file name, so CloudFront's client-side-route rewrite (lib/console.ts) leaves it alone.
 */
export const CLIENT_FILES_PREFIX = '/client/';

/**
 * The console's Content-Security-Policy: its own scripts, styles and API only (the bundle has
 * no inline script or style), never framed.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** Headers on every console response (CloudFront adds HSTS itself, lib/console.ts). */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/**
 * Vite names every file under assets/ by its content hash: cache forever. index.html and the
 * client files always revalidate (a rebuild of the same version keeps its file name).
 */
export function cacheControl(path: string): string {
  return path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
}
