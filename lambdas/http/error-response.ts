/**
 * Turns any thrown value into the docs/API.md §7 error envelope
 * `{error: {code, message, request_id}}`. Only LedgerErrors speak to the client; anything
 * else is logged and answered with a bare INTERNAL_ERROR, so a 5xx never leaks internals
 * (docs/ARCHITECTURE.md, Conventions).
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { LedgerError, isLedgerError } from '../shared/errors.js';
import { logger } from '../logger.js';

const REQUEST_ID_HEADER = 'x-request-id';

export function jsonHeaders(requestId: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    [REQUEST_ID_HEADER]: requestId,
    ...extra,
  };
}

export function errorResponse(error: unknown, requestId: string): APIGatewayProxyStructuredResultV2 {
  const known: LedgerError = isLedgerError(error)
    ? error
    : new LedgerError('INTERNAL_ERROR', 'internal error; the request may or may not have taken effect');
  if (!isLedgerError(error)) {
    logger.error('unhandled error', { error: error instanceof Error ? error : String(error) });
  } else if (known.status >= 500) {
    logger.error('request failed', { code: known.code, error: known.cause instanceof Error ? known.cause : undefined });
  }
  return {
    statusCode: known.status,
    headers: jsonHeaders(requestId, known.headers),
    body: JSON.stringify({
      error: { code: known.code, message: known.message, request_id: requestId, ...(known.reason === undefined ? {} : { reason: known.reason }) },
    }),
  };
}
