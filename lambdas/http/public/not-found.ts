/**
 * The catch-all for requests no route matches (API Gateway `$default` route; the local
 * server calls it too): NOT_FOUND 404 in the docs/API.md §7 envelope. A known path with a wrong
 * method is also NOT_FOUND (docs/API.md §7 has no method code) but says which methods exist,
 * with an Allow header (RFC 9110 §10.2.1).
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { LedgerError } from '../../shared/errors.js';
import { routeMatcher } from '../../routes/route-match.js';
import { routeList } from '../../routes/routes.js';
import { errorResponse } from '../error-response.js';

const matcher = routeMatcher(routeList);

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const requestId = event.requestContext?.requestId || crypto.randomUUID();
  const method = event.requestContext?.http?.method ?? 'GET';
  const path = event.rawPath ?? event.requestContext?.http?.path ?? '/';
  const allowed = matcher.allowedMethods(path);
  const error =
    allowed.length > 0
      ? new LedgerError('NOT_FOUND', `${method} is not supported on ${path}; use ${allowed.join(', ')}`, {
          headers: { allow: allowed.join(', ') },
        })
      : new LedgerError('NOT_FOUND', `no route for ${method} ${path}`);
  return errorResponse(error, requestId);
}
