/**
 * The console on the local stack: GET and HEAD of any path outside the API's prefixes
 * (console/serving.ts) serve console/dist, with the page (index.html) for client-side routes
 * such as /agents/abc. CloudFront does the same in AWS (lib/console.ts).
 */
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SECURITY_HEADERS, cacheControl, isApiPath } from '../console/serving.js';

/** console/dist of this checkout, built by `npm ci` (the console workspace's prepare). */
const CONSOLE_DIST = fileURLToPath(new URL('../console/dist/', import.meta.url));

export const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.tgz': 'application/gzip',
  '.whl': 'application/zip',
};

export async function fileIn(root: string, path: string): Promise<string | null> {
  const file = normalize(join(root, path));
  if (!file.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  try {
    return (await stat(file)).isFile() ? file : null;
  } catch {
    return null;
  }
}

export function send(res: ServerResponse, method: string, status: number, type: string, body: Buffer | string, cache: string): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': cache, 'content-length': bytes.length });
  res.end(method === 'HEAD' ? undefined : bytes);
}

/**
 * Answers the request when it is the console's (true), or leaves it to the API (false).
 * `root` is the built console; when it is missing the page says how to build it.
 */
export async function serveConsole(req: IncomingMessage, res: ServerResponse, root = CONSOLE_DIST): Promise<boolean> {
  const method = req.method ?? 'GET';
  const rawPath = (req.url ?? '/').split('?')[0] ?? '/';
  if ((method !== 'GET' && method !== 'HEAD') || isApiPath(rawPath)) return false;
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    send(res, method, 400, 'text/plain; charset=utf-8', 'malformed path\n', 'no-store');
    return true;
  }
  const file = path === '/' ? null : await fileIn(root, path);
  if (file) {
    send(res, method, 200, TYPES[extname(file)] ?? 'application/octet-stream', await readFile(file), cacheControl(path));
    return true;
  }
  // A file name that is not there is a 404; any other path is a route of the single-page app.
  if (extname(path) !== '') {
    send(res, method, 404, 'text/plain; charset=utf-8', 'not found\n', 'no-store');
    return true;
  }
  const index = await fileIn(root, 'index.html');
  if (!index) {
    send(res, method, 503, 'text/plain; charset=utf-8', 'The console is not built: run `npm run build -w console` (npm ci does it), then reload.\n', 'no-store');
    return true;
  }
  send(res, method, 200, TYPES['.html']!, await readFile(index), 'no-cache');
  return true;
}
