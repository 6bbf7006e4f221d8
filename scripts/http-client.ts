/**
 * A minimal JSON client for the scripts (bench, demo): they talk to the service over HTTP
 * exactly as a user's tooling would, through the public sign-up flow.
 */
import { randomBytes } from 'node:crypto';

/** One JSON request; throws with the error envelope on a non-2xx answer. */
export async function json(baseUrl: string, method: string, path: string, body?: unknown, token?: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

/** An API token of a fresh organization, through the public sign-up flow (SPEC.md §4.1, §4.2). */
export async function apiToken(baseUrl: string, name: string): Promise<{ token: string; orgId: string; email: string }> {
  const email = `${name.toLowerCase()}-${randomBytes(4).toString('hex')}@example.test`;
  const password = randomBytes(12).toString('base64url');
  await json(baseUrl, 'POST', '/api/auth/sign-up/email', { name, email, password });
  const session = (await json(baseUrl, 'POST', '/api/auth/sign-in/email', { email, password })).token as string;
  const orgId = (await json(baseUrl, 'POST', '/v1/onboarding/personal', undefined, session)).org_id as string;
  const token = (await json(baseUrl, 'POST', '/v1/auth/token', {}, session)).token as string;
  return { token, orgId, email };
}
