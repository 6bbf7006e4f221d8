/**
 * Request body parsing (docs/ARCHITECTURE.md, Conventions): a non-empty body must be JSON with a JSON
 * content type; malformed JSON, a repeated member name anywhere in it (I-JSON, RFC 7493
 * §2.3; docs/PROTOCOL.md, Operation record) or another content type is VALIDATION_ERROR 400.
 * An empty body reads as `undefined` so routes without a body accept a bare POST.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { LedgerError } from '../shared/errors.js';
import { repeatedMemberName } from './json-members.js';

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export function parseJsonBody(event: APIGatewayProxyEventV2): unknown {
  const raw = event.body;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (text.trim() === '') return undefined;
  const contentType = headerValue(event, 'content-type');
  if (!contentType || !JSON_CONTENT_TYPE.test(contentType)) {
    throw new LedgerError(
      'VALIDATION_ERROR',
      `request body must be JSON with content-type application/json (got ${contentType ? `"${contentType}"` : 'none'})`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (error) {
    throw new LedgerError('VALIDATION_ERROR', `request body is not valid JSON: ${(error as Error).message}`);
  }
  const repeated = repeatedMemberName(text);
  if (repeated !== undefined) {
    throw new LedgerError('VALIDATION_ERROR', `request body repeats the member name "${repeated}" (I-JSON, RFC 7493 §2.3)`);
  }
  return body;
}

/** Header lookup that does not depend on the case API Gateway or a proxy chose. */
export function headerValue(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const headers = event.headers ?? {};
  const direct = headers[name];
  if (direct !== undefined) return direct;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}
