/**
 * Request body parsing (docs/ARCHITECTURE.md, Conventions): a non-empty body must be JSON with a JSON
 * content type; malformed JSON, a repeated member name anywhere in it (I-JSON, RFC 7493
 * §2.3; docs/PROTOCOL.md, Operation record), nesting deeper than the protocol's limit
 * (docs/PROTOCOL.md, Nesting limit: 64 levels, the body object being level 1; no route's
 * body needs more, and the record of POST /v1/operations is held to exactly that) or
 * another content type is VALIDATION_ERROR 400.
 * An empty body reads as `undefined` so routes without a body accept a bare POST.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MAX_RECORD_DEPTH, deepestPathOver } from '@agent-ledger/protocol';
import { LedgerError } from '../shared/errors.js';
import { repeatedMemberName } from './json-members.js';

/** application/json, or a +json type, with optional parameters. */
export const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

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
  // Measured on the parsed value (JSON.parse does not recurse) and before anything that does:
  // the repeated-member scan below, schema parsing, canonicalization.
  const deep = deepestPathOver(body, MAX_RECORD_DEPTH, 'body');
  if (deep !== null) {
    throw new LedgerError(
      'VALIDATION_ERROR',
      `request body ${memberOf(deep)}nests deeper than ${MAX_RECORD_DEPTH} levels: the object or array at ${deep} is at level ${MAX_RECORD_DEPTH + 1} or deeper (the body object is level 1; docs/PROTOCOL.md, Nesting limit)`,
    );
  }
  const repeated = repeatedMemberName(text);
  if (repeated !== undefined) {
    throw new LedgerError('VALIDATION_ERROR', `request body repeats the member name "${repeated}" (I-JSON, RFC 7493 §2.3)`);
  }
  return body;
}

/** `member 'payload' ` for a path `body.payload…`, so the message names the top-level member first. */
function memberOf(path: string): string {
  const name = /^body\.(\w+)/.exec(path)?.[1];
  return name === undefined ? '' : `member '${name}' `;
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
