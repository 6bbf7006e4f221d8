/**
 * The API client: openapi-fetch typed by the SDK's generated types (client/src/generated/api.ts,
 * from GET /v1/openapi.json), on the console's own origin. Sessions ride on the HttpOnly
 * `ledger_session` cookie the sign-in sets (same origin locally and behind CloudFront, so no
 * CORS and no token in script reach). Every call goes through {@link call}, which turns the
 * docs/API.md §7 error envelope into an {@link ApiError} with a readable message.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from '@agent-ledger/client/api-types';

export type Schemas = components['schemas'];
/** Request and answer bodies by the route's operation id, e.g. RequestOf<'CreateExport'>. */
export type { RequestOf, ResponseOf } from '@agent-ledger/client/api-shapes';

// JSON content type on every request, body or not: the service refuses a cookie-authenticated
// write without it (a cross-site form cannot send it; lambdas/http/same-origin.ts).
export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin', headers: { 'Content-Type': 'application/json' } });

/** What the UI says before the server's own message, per docs/API.md §7 code. */
const LEAD: Record<string, string> = {
  UNAUTHORIZED: 'You are signed out or your session ended',
  FORBIDDEN: 'Your role does not allow this',
  NOT_FOUND: 'Not found',
  RATE_LIMITED: 'Too many requests',
  INTERNAL_ERROR: 'The service failed; nothing you did caused it',
};

/** A wait in words a person can act on: "40 seconds", "13 minutes". */
function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly serverMessage: string,
    readonly requestId: string | undefined,
    /** Retry-After of a RATE_LIMITED answer, in seconds. */
    readonly retryAfter?: number,
  ) {
    const lead = LEAD[code];
    // A rate limit says when to try again, once, in minutes when it is long (the server's own text repeats it in seconds).
    const text = code === 'RATE_LIMITED' && retryAfter !== undefined ? `${lead}: try again in ${waitText(retryAfter)}.` : lead ? `${lead}: ${serverMessage}` : serverMessage;
    super(text);
    this.name = 'ApiError';
  }
}

type Outcome<T> = { data?: T; error?: unknown; response: Response };

/** The body of a 2xx answer; otherwise throws ApiError (also for a network failure, status 0). */
export async function call<T>(request: Promise<Outcome<T>>): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await request;
  } catch (error) {
    throw new ApiError(0, 'NETWORK', `the service could not be reached (${error instanceof Error ? error.message : String(error)})`, undefined);
  }
  const { data, error, response } = outcome;
  if (response.ok) return data as T;
  const envelope = (error as { error?: { code?: string; message?: string; request_id?: string } } | undefined)?.error;
  const retryAfter = Number(response.headers.get('retry-after') ?? NaN);
  if (envelope?.code) throw new ApiError(response.status, envelope.code, envelope.message ?? response.statusText, envelope.request_id, Number.isFinite(retryAfter) ? retryAfter : undefined);
  throw new ApiError(response.status, 'HTTP', `HTTP ${response.status} ${response.statusText}`.trim(), undefined);
}

/** The readable text of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
