/**
 * JSON over HTTP(S) with node:http: the hook starts a process per tool use, and the global
 * fetch loads its whole HTTP stack (undici) on first use, which costs more start-up time than
 * the request itself on a local service. One request, no keep-alive pool to wait for.
 *
 * node:http never follows a redirect (fetch's `redirect: 'manual'`), and `jsonBody` makes a
 * 3xx answer an error: a request that carries an API token goes to the token's origin and
 * nowhere else (docs/CLI.md "Several services"). Only `download` follows redirects, without
 * the token once they leave the service's origin.
 */
import type { IncomingHttpHeaders, IncomingMessage, RequestOptions } from 'node:http';
import { LedgerApiError, LedgerTransportError } from './errors.js';

interface HttpRequest {
  method: string;
  url: URL;
  headers?: Record<string, string>;
  /** Serialized as JSON when not a Buffer. */
  body?: unknown;
  timeoutMs: number;
}

interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Sends one request (a redirect is answered, not followed) and collects the whole answer; rejects with LedgerTransportError. */
export async function send(request: HttpRequest): Promise<HttpResponse> {
  const { request: httpRequest } = request.url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const payload = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(JSON.stringify(request.body));
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (payload !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(payload.byteLength);
  }
  const options: RequestOptions = { method: request.method, headers, agent: false };
  return new Promise<HttpResponse>((resolve, reject) => {
    const req = httpRequest(request.url, options, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', fail);
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${request.timeoutMs} ms`)), request.timeoutMs);
    function fail(error: Error) {
      clearTimeout(timer);
      reject(new LedgerTransportError(`${request.method} ${request.url.origin}${request.url.pathname}: ${describe(error)}`, undefined, { cause: error }));
    }
    req.on('error', fail);
    req.end(payload);
  });
}

function describe(error: Error & { code?: string }): string {
  if (error.code === 'ECONNREFUSED') return 'connection refused (is the service running?)';
  if (error.code === 'ENOTFOUND') return 'host not found';
  return error.message;
}

/** Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(headers: IncomingHttpHeaders, now = Date.now()): number | undefined {
  const value = headers['retry-after'];
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The parsed JSON body of a 2xx answer; otherwise throws LedgerApiError (the docs/API.md §7
 * envelope) or LedgerTransportError (anything else, such as a proxy's HTML error page, or a
 * redirect, which is never followed).
 */
export function jsonBody<T>(method: string, url: URL, response: HttpResponse): T {
  const where = `${method} ${url.pathname}`;
  if (response.status >= 300 && response.status < 400) throw redirectError(where, url, response);
  let parsed: unknown;
  try {
    parsed = response.body.byteLength === 0 ? null : JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new LedgerTransportError(`${where}: HTTP ${response.status} with a body that is not JSON`, response.status);
  }
  if (response.status >= 200 && response.status < 300) return parsed as T;
  const error = (parsed as { error?: { code?: unknown; message?: unknown; request_id?: unknown; reason?: unknown } } | null)?.error;
  if (error && typeof error.code === 'string') {
    const message = typeof error.message === 'string' ? error.message : '';
    const requestId = typeof error.request_id === 'string' ? error.request_id : undefined;
    const reason = typeof error.reason === 'string' ? error.reason : undefined;
    throw new LedgerApiError(response.status, error.code, message, requestId, retryAfterMs(response.headers), reason);
  }
  throw new LedgerTransportError(`${where}: HTTP ${response.status} without the service's error envelope`, response.status);
}

/** A redirect, named with where it points (its origin only: a Location may carry a signed query). */
function redirectError(where: string, url: URL, response: HttpResponse): LedgerTransportError {
  const location = response.headers.location;
  let to = '';
  if (typeof location === 'string' && location !== '') {
    try {
      to = ` to ${new URL(location, url).origin}`;
    } catch {
      to = ' to an unreadable Location';
    }
  }
  return new LedgerTransportError(`${where}: HTTP ${response.status}, a redirect${to}; not followed (a request, and any API token it carries, goes only to ${url.origin}): check the URL`, response.status);
}

/**
 * Streams a GET to `destination` (a temp file renamed into place by the caller). Follows up
 * to 3 redirects; the Authorization header goes only to the service's own origin, never to
 * the presigned object-store URL a download redirects to.
 */
export async function download(url: URL, headers: Record<string, string>, destination: string, timeoutMs: number): Promise<number> {
  const { createWriteStream } = await import('node:fs');
  const { pipeline } = await import('node:stream/promises');
  let current = url;
  for (let hop = 0; hop <= 3; hop++) {
    const { request: httpRequest } = current.protocol === 'https:' ? await import('node:https') : await import('node:http');
    const sameOrigin = current.origin === url.origin;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(current, { method: 'GET', headers: sameOrigin ? headers : {}, agent: false }, resolve);
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', (error) => reject(new LedgerTransportError(`GET ${current.origin}${current.pathname}: ${describe(error)}`, undefined, { cause: error })));
      req.end();
    });
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      current = new URL(res.headers.location, current);
      continue;
    }
    if (status !== 200) {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return jsonBody<never>('GET', current, { status, headers: res.headers, body: Buffer.concat(chunks) });
    }
    let bytes = 0;
    res.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
    await pipeline(res, createWriteStream(destination, { mode: 0o600 }));
    return bytes;
  }
  throw new LedgerTransportError(`GET ${url.pathname}: too many redirects`);
}
