/**
 * Errors of the SDK. An answer of the service in the docs/API.md §7 envelope becomes a
 * {@link LedgerApiError} carrying its code; a service that cannot be reached, times out or
 * answers something that is not the envelope becomes a {@link LedgerTransportError}.
 */

/** docs/API.md §7 error codes (the service may add codes; unknown ones stay strings). */
export type LedgerErrorCode =
  | 'INVALID_SIGNATURE'
  | 'UNKNOWN_AGENT'
  | 'KEY_REVOKED'
  | 'KEY_RETIRED'
  | 'AGENT_FROZEN'
  | 'AGENT_REVOKED'
  | 'TTL_EXPIRED'
  | 'REPLAY_DETECTED'
  | 'PREV_HASH_MISMATCH'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'VALIDATION_ERROR'
  | 'EXPORT_WITHDRAWN'
  | (string & {});

/**
 * The service answered with an error envelope `{error: {code, message, request_id}}`.
 *
 * @example
 * try { await client.getAgent('a1'); } catch (e) { if (e instanceof LedgerApiError && e.code === 'NOT_FOUND') ... }
 */
export class LedgerApiError extends Error {
  override readonly name = 'LedgerApiError';
  constructor(
    readonly status: number,
    readonly code: LedgerErrorCode,
    message: string,
    readonly requestId: string | undefined,
    /** From the Retry-After header of a 429 or 503 (docs/API.md §7 RATE_LIMITED, SERVICE_UNAVAILABLE), in ms. */
    readonly retryAfterMs?: number,
    /** Why a token the service knows no longer works (UNAUTHORIZED: `expired`, `revoked`, `rotated`, docs/API.md §7). */
    readonly reason?: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/**
 * No usable answer: connection refused, DNS failure, timeout, or a body that is not the
 * service's JSON (a proxy's HTML page, a truncated response, a 5xx without the envelope).
 *
 * @example
 * if (error instanceof LedgerTransportError) console.error(`service unreachable: ${error.message}`);
 */
export class LedgerTransportError extends Error {
  override readonly name = 'LedgerTransportError';
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * True when `error` is a {@link LedgerApiError} with one of `codes`.
 *
 * @example
 * if (isApiError(error, 'AGENT_FROZEN', 'AGENT_REVOKED')) deny();
 */
export function isApiError(error: unknown, ...codes: LedgerErrorCode[]): error is LedgerApiError {
  return error instanceof LedgerApiError && (codes.length === 0 || codes.includes(error.code));
}
