/**
 * A small HTTP client for the identity e2e tests: JSON in and out, a bearer token or
 * cookies, redirects not followed (the social sign-in tests look at each 302 themselves).
 */
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
}

export async function http(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.cookies?.length) headers.cookie = options.cookies.join('; ');
  const url = path.startsWith('http') ? path : `${baseUrl}${path}`;
  const res = await fetch(url, {
    method,
    headers,
    redirect: 'manual',
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
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
