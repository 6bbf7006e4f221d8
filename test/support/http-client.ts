/**
 * The one JSON-over-HTTP client of the tests and the scripts (bench, demo): JSON in and out,
 * a bearer token or cookies, redirects not followed (the social sign-in tests look at each
 * 302 themselves). Three shapes over one `http()`:
 * - `client(baseUrl)`: the full answer (status, headers, json, text, cookies);
 * - `apiClient(baseUrl, token)`: `(method, path, body)` → {status, body, headers}, for the
 *   ledger tests that act as one caller;
 * - `json(baseUrl, method, path, body, token)`: the body, or a thrown error on a non-2xx
 *   answer, for scripts that talk to the service as a user's tooling would.
 */
import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
export interface HttpResult {
  status: number;
  headers: Headers;
  /** Parsed JSON body (null for an empty or non-JSON body). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response shapes vary per route; tests assert them
  text: string;
  /** Set-Cookie values of the response. */
  setCookies: string[];
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** `name=value` pairs for the Cookie header. */
  cookies?: string[];
  /**
   * Extra request headers. A request with cookies is sent as the console (a same-origin page)
   * sends it, `Sec-Fetch-Site: same-origin` and a JSON content type, unless these say
   * otherwise (a header set to null is left out): what a forging page can send is tested
   * by overriding them.
   */
  headers?: Record<string, string | null>;
  /** The connection pool to send it through (URL mode: a client address of its own, test/support/ledger-url.ts). */
  dispatcher?: Dispatcher;
}

export async function http(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.cookies?.length) {
    headers.cookie = options.cookies.join('; ');
    headers['sec-fetch-site'] = 'same-origin';
    headers['content-type'] = 'application/json';
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === null) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  const url = path.startsWith('http') ? path : `${baseUrl}${path}`;
  const res = await fetch(url, {
    method,
    headers,
    redirect: 'manual',
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  } as RequestInit);
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json, text, setCookies: res.headers.getSetCookie() };
}

/** The `name=value` part of the Set-Cookie for `name`, if the response set it. */
export function cookiePair(result: HttpResult, name: string): string | undefined {
  return result.setCookies.map((cookie) => cookie.split(';')[0]!.trim()).find((pair) => pair.startsWith(`${name}=`));
}

/** A client bound to one stack. */
export function client(baseUrl: string) {
  return (method: string, path: string, options?: RequestOptions) => http(baseUrl, method, path, options);
}

let counter = 0;
/** A fresh email per call, so tests sharing a table never collide. */
export const uniqueEmail = (prefix = 'user') => `${prefix}.${process.pid}.${++counter}.${Date.now().toString(36)}@example.test`;

/** Parsed JSON as tests read it: its shape is asserted by expect(), not by the type checker. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type Loose = any;

export interface ApiResponse<T = Loose> {
  status: number;
  body: T;
  headers: Headers;
}

/** JSON over HTTP as one caller (a bearer token); the body is parsed whatever the status. */
export function apiClient(baseUrl: string, token?: string) {
  return async function call<T = Loose>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
    const res = await http(baseUrl, method, path, { ...(token ? { token } : {}), ...(body === undefined ? {} : { body }) });
    return { status: res.status, body: res.json as T, headers: res.headers };
  };
}

export type Api = ReturnType<typeof apiClient>;

/** One JSON request; throws with the error envelope on a non-2xx answer. */
export async function json(baseUrl: string, method: string, path: string, body?: unknown, token?: string): Promise<Record<string, unknown>> {
  const res = await http(baseUrl, method, path, { ...(token ? { token } : {}), ...(body === undefined ? {} : { body }) });
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.json as Record<string, unknown>;
}

/** An API token of a fresh organization, through the public sign-up flow (docs/API.md §4.1, §4.2). */
export async function apiToken(baseUrl: string, name: string): Promise<{ token: string; orgId: string; email: string }> {
  const email = `${name.toLowerCase()}-${randomBytes(4).toString('hex')}@example.test`;
  const password = randomBytes(12).toString('base64url');
  await json(baseUrl, 'POST', '/api/auth/sign-up/email', { name, email, password });
  const session = (await json(baseUrl, 'POST', '/api/auth/sign-in/email', { email, password })).token as string;
  const orgId = (await json(baseUrl, 'POST', '/v1/onboarding/personal', undefined, session)).org_id as string;
  const token = (await json(baseUrl, 'POST', '/v1/auth/token', {}, session)).token as string;
  return { token, orgId, email };
}
