/**
 * API Gateway's HTTP API in front of the route functions, from the template's routes
 * (AWS::ApiGatewayV2::Route RouteKey → integration → function): each request matched as the
 * HTTP API matches (literal segments before parameters, `$default` for the rest), turned into
 * the payload format 2.0 event (local/apigw-event.ts, the one definition of that shape) and
 * answered from the function's result as API Gateway reads it. An invocation that throws or
 * times out is API Gateway's own 500 / 503, and counted as a failure of the rehearsal.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toApiGatewayEvent } from '../../local/apigw-event.js';
import { routeMatcher } from '../../lambdas/routes/route-match.js';
import type { RouteSpec } from '../../lambdas/routes/route-spec.js';
import type { RehearsalRoute } from './deployment.js';
import type { Invocation } from './function-host.js';

/** HTTP API payload quota: 10 MB. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

interface ApiFront {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

type StructuredResult = { statusCode?: number; headers?: Record<string, string | number | boolean>; cookies?: string[]; body?: string; isBase64Encoded?: boolean };

export async function startApiFront(
  routes: readonly RehearsalRoute[],
  invoke: (functionId: string, event: unknown, requestId: string) => Promise<Invocation>,
  onFailure: (functionId: string, routeKey: string, failure: string) => void,
  port = 0,
): Promise<ApiFront> {
  const specs = routes.filter((route) => route.routeKey !== '$default').map((route) => ({ ...route, id: route.functionId }) as unknown as RouteSpec & RehearsalRoute);
  const matcher = routeMatcher(specs);
  const fallback = routes.find((route) => route.routeKey === '$default');

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      void (async () => {
        const requestId = randomUUID();
        const send = (status: number, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
          res.writeHead(status, { ...headers, 'apigw-requestid': requestId, 'content-length': Buffer.byteLength(body) });
          res.end(body);
        };
        if (size > MAX_BODY_BYTES) return send(413, JSON.stringify({ message: 'Request Entity Too Large' }));
        const method = req.method ?? 'GET';
        const url = req.url ?? '/';
        const match = matcher.match(method, url.split('?')[0] ?? '/');
        const route = match ? (match.route as unknown as RehearsalRoute) : fallback;
        if (!route) return send(404, JSON.stringify({ message: 'Not Found' }));
        const event = toApiGatewayEvent({
          method,
          url,
          rawHeaders: req.rawHeaders,
          body: Buffer.concat(chunks),
          sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
          httpVersion: req.httpVersion,
          requestId,
          routeKey: route.routeKey,
          ...(match ? { pathParameters: match.pathParameters } : {}),
        });
        const outcome = await invoke(route.functionId, event, requestId);
        if (!outcome.ok) {
          onFailure(route.functionId, route.routeKey, `${outcome.error?.name ?? 'Error'}: ${outcome.error?.message ?? ''}`);
          return outcome.error?.name === 'TimeoutError'
            ? send(503, JSON.stringify({ message: 'Service Unavailable' }))
            : send(500, JSON.stringify({ message: 'Internal Server Error' }));
        }
        // Format 2.0: an object with statusCode is a structured response, anything else a 200 JSON body.
        const result = outcome.result;
        const structured: StructuredResult =
          typeof result === 'object' && result !== null && 'statusCode' in result
            ? (result as StructuredResult)
            : { statusCode: 200, headers: { 'content-type': 'application/json' }, body: typeof result === 'string' ? result : JSON.stringify(result) };
        const body = structured.body === undefined ? Buffer.alloc(0) : Buffer.from(structured.body, structured.isBase64Encoded ? 'base64' : 'utf8');
        // A 503 is a function's own answer (the deep health check's "degraded"); any other 5xx is a failure.
        if ((structured.statusCode ?? 200) >= 500 && structured.statusCode !== 503) onFailure(route.functionId, route.routeKey, `answered ${structured.statusCode}: ${body.toString('utf8').slice(0, 300)}`);
        res.statusCode = structured.statusCode ?? 200;
        for (const [name, value] of Object.entries(structured.headers ?? {})) res.setHeader(name, String(value));
        if (structured.cookies?.length) res.setHeader('set-cookie', structured.cookies);
        res.setHeader('apigw-requestid', requestId);
        res.setHeader('content-length', body.length);
        res.end(body);
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
