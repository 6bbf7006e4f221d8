/**
 * Domain errors. Every failure a client can see is a `LedgerError` carrying one of the
 * codes of docs/API.md §7; the HTTP layer maps the code to its status and the
 * `{error: {code, message, request_id}}` envelope.
 */

/** docs/API.md §7 error codes with their HTTP status. */
export const ERROR_STATUS = {
  INVALID_SIGNATURE: 400,
  UNKNOWN_AGENT: 404,
  KEY_REVOKED: 403,
  KEY_RETIRED: 403,
  AGENT_FROZEN: 403,
  AGENT_REVOKED: 403,
  TTL_EXPIRED: 400,
  REPLAY_DETECTED: 400,
  PREV_HASH_MISMATCH: 400,
  PAYLOAD_TOO_LARGE: 400,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  VALIDATION_ERROR: 400,
  /** A download of an export withdrawn because a payload it held was erased (docs/API.md §4.8). */
  EXPORT_WITHDRAWN: 410,
} as const;

type ErrorCode = keyof typeof ERROR_STATUS;

/** Refusals for the sender's standing (docs/API.md §4.5 rules 2 and 3): the ones a refused attempt is kept for (§4.3 "Refused attempts"). */
export const STANDING_CODES = ['AGENT_FROZEN', 'AGENT_REVOKED', 'KEY_REVOKED', 'KEY_RETIRED'] as const satisfies readonly ErrorCode[];
export type StandingCode = (typeof STANDING_CODES)[number];
export const isStandingCode = (code: string): code is StandingCode => (STANDING_CODES as readonly string[]).includes(code);

interface LedgerErrorOptions {
  /** Overrides the code's default status; docs/API.md §7 allows 409 for VALIDATION_ERROR (conflicting state). */
  status?: number;
  /** Extra response headers, e.g. Retry-After for RATE_LIMITED. */
  headers?: Record<string, string>;
  cause?: unknown;
  /** UNAUTHORIZED for an API token the service knows: why it no longer works (docs/API.md §7 `reason`). */
  reason?: string;
}

export class LedgerError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly reason: string | undefined;

  constructor(code: ErrorCode, message: string, options: LedgerErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LedgerError';
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.headers = options.headers ?? {};
    this.reason = options.reason;
  }
}

/** VALIDATION_ERROR with HTTP 409: the request is well formed but conflicts with current state (docs/API.md §7). */
export function conflict(message: string): LedgerError {
  return new LedgerError('VALIDATION_ERROR', message, { status: 409 });
}

export function notFound(what: string): LedgerError {
  return new LedgerError('NOT_FOUND', `${what} not found`);
}

export function isLedgerError(error: unknown): error is LedgerError {
  return error instanceof LedgerError;
}
