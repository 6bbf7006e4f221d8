/**
 * The shared middy stack of every route's Lambda handler (request id, error envelope, JSON
 * body, zod validation, JSON response) around a thin function that calls the domain
 * (docs/ARCHITECTURE.md, "Handlers are thin"). Handlers are made with `defineHandler` or
 * `definePublicHandler`, which differ only in how they find the caller, so the HTTP
 * conventions hold for every route by construction.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { config } from '../config.js';
import { isLedgerError, LedgerError } from '../shared/errors.js';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logAccess, logger } from '../logger.js';
import { MetricUnit, recordMetrics } from '../metrics.js';
import type { Caller } from '../domain/auth/caller.js';
import type { RouteAuth, RouteSpec } from '../routes/route-spec.js';
import type { ApiRequest, ApiResult } from './api-request.js';
import { errorResponse, jsonHeaders } from './error-response.js';
import { parseJsonBody } from './json-body.js';
import { validatePart } from './validate-request.js';

export type RouteFunction<R extends RouteSpec> = (request: ApiRequest<R>) => Promise<ApiResult<R>>;

/** Finds the caller a route requires (authenticate.ts), or null for a public route. */
type Identify = (auth: RouteAuth, event: APIGatewayProxyEventV2) => Promise<Caller | null>;

export type LambdaHttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** API Gateway's request id; an event without one (a direct invoke) gets a fresh id, stored so every later step sees the same one. */
function requestIdOf(event: APIGatewayProxyEventV2): string {
  const context = (event.requestContext ??= {} as APIGatewayProxyEventV2['requestContext']);
  context.requestId ||= crypto.randomUUID();
  return context.requestId;
}

function lowerCaseHeaders(event: APIGatewayProxyEventV2): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(event.headers ?? {})) headers[key.toLowerCase()] = value;
  return headers;
}

/** Serializes a result. Response schemas are enforced locally (tests, `npm start`), where a mismatch is a bug to surface. */
function toResponse<R extends RouteSpec>(
  route: R,
  result: ApiResult<R>,
  requestId: string,
): APIGatewayProxyStructuredResultV2 {
  const status = result.status ?? route.response.status;
  const schema = route.response.body;
  if (schema === null) {
    const body = result.body as string | Uint8Array;
    const binary = typeof body !== 'string';
    return {
      statusCode: status,
      headers: { 'x-request-id': requestId, 'content-type': route.response.contentType ?? 'application/octet-stream', ...result.headers },
      body: binary ? Buffer.from(body).toString('base64') : body,
      isBase64Encoded: binary,
      // Redirects set cookies too (social sign-in callback).
      ...(result.cookies ? { cookies: result.cookies } : {}),
    };
  }
  if (config().stage === 'local') {
    const checked = schema.safeParse(result.body);
    if (!checked.success) {
      throw new Error(`response of ${route.id} does not match its schema: ${checked.error.message}`);
    }
  }
  return {
    statusCode: status,
    headers: jsonHeaders(requestId, result.headers),
    body: JSON.stringify(result.body),
    ...(result.cookies ? { cookies: result.cookies } : {}),
  };
}

export interface HandlerOptions {
  /** A count per request with dimension `outcome`: ACCEPTED, or the docs/API.md §7 code it failed with (lambdas/metrics.ts). */
  outcomeMetric?: string;
}

export function buildHandler<R extends RouteSpec>(
  route: R,
  fn: RouteFunction<NoInfer<R>>,
  identify: Identify,
  options: HandlerOptions = {},
): LambdaHttpHandler {
  const core = async (event: APIGatewayProxyEventV2) => {
    const requestId = requestIdOf(event);
    const spec = route.request;
    // docs/API.md §7 / docs/PROTOCOL.md check order: authentication and role come before body shape.
    const caller = await identify(route.auth, event);
    const body = parseJsonBody(event);
    if (body !== undefined && !spec?.body) {
      throw new LedgerError('VALIDATION_ERROR', `${route.method} ${route.path} takes no request body`);
    }
    const request = {
      route,
      caller,
      requestId,
      params: validatePart('params', spec?.params, event.pathParameters ?? {}),
      query: validatePart('query', spec?.query, event.queryStringParameters ?? {}),
      body: validatePart('body', spec?.body, body),
      headers: lowerCaseHeaders(event),
      cookies: event.cookies ?? [],
      event,
    } as unknown as ApiRequest<R>;
    return toResponse(route, await fn(request), requestId);
  };

  const started = new WeakMap<object, number>();
  /** After each request: the access line, the request metrics and the route's outcome metric. */
  const finish = (event: APIGatewayProxyEventV2, status: number, error?: unknown) => {
    const latencyMs = Math.round(performance.now() - (started.get(event) ?? performance.now()));
    logAccess({ method: route.method, path: event.rawPath ?? route.path, status, latencyMs });
    recordMetrics(
      [
        { name: 'Requests', unit: MetricUnit.Count, value: 1 },
        { name: 'RequestLatency', unit: MetricUnit.Milliseconds, value: latencyMs },
      ],
      { route: route.id, status: String(status) },
    );
    if (options.outcomeMetric) {
      const outcome = error === undefined ? 'ACCEPTED' : isLedgerError(error) ? error.code : 'INTERNAL_ERROR';
      recordMetrics([{ name: options.outcomeMetric, unit: MetricUnit.Count, value: 1 }], { outcome });
    }
  };

  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
    .before((request) => {
      // A direct invoke may come without a context; the logger's context reader needs an object.
      request.context ??= {} as Context;
    })
    // cold_start, function_name, function_request_id, ... on every line of the invocation.
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .before((request) => {
      started.set(request.event, performance.now());
      logger.appendKeys({ request_id: requestIdOf(request.event), route: route.id });
    })
    .after((request) => finish(request.event, request.response?.statusCode ?? route.response.status))
    .onError((request) => {
      request.response = errorResponse(request.error, requestIdOf(request.event));
      finish(request.event, request.response.statusCode ?? 500, request.error);
    })
    .handler(core);

  return handler as unknown as LambdaHttpHandler;
}
