/**
 * The local stand-in for API Gateway (docs/ARCHITECTURE.md, Local stack: "Node server on
 * 127.0.0.1:$PORT turning each request into an API Gateway v2 event for the route's
 * handler"). It matches the request against the route table (lambdas/routes/routes.ts) with the
 * same matcher the not-found handler uses, invokes the route's handler module in-process and
 * writes back its structured result. Requests no route takes go to the `$default` handler
 * (`notFoundHandler`), as in the deployed HTTP API. GET and HEAD outside the API's prefixes
 * serve the web console (local/console-assets.ts), and those under /client/ the service's own
 * client (local/client-files.ts).
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { routeMatcher } from '../lambdas/routes/route-match.js';
import { notFoundHandler, routeList } from '../lambdas/routes/routes.js';
import { toApiGatewayEvent } from './apigw-event.js';
import { backgroundGate } from './background-priority.js';
import { serveClientFiles, type ClientFilesSource } from './client-files.js';
import { serveConsole } from './console-assets.js';
import { loadHandler } from './handler-modules.js';
import { lambdaContext } from './lambda-context.js';

/** API Gateway's payload limit (HTTP API quotas: 10 MB). */
export const MAX_REQUEST_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Lambda's limit on a synchronous invocation's response (Lambda quotas: 6 MB), measured on the
 * result as Lambda serializes it, the body an escaped JSON string inside it. Past it, Lambda
 * fails the invocation and API Gateway answers a 5xx, so the local server does too.
 */
export const MAX_LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024;
const DEFAULT_TIMEOUT_SECONDS = 10;

interface HttpServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** The built console to serve outside the API's paths (default console/dist; local/console-assets.ts). */
  consoleDir?: string;
  /** The client files to serve under /client/ (local/client-files.ts); none when omitted. */
  clientFiles?: ClientFilesSource;
}

export interface LocalHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;

class BodyTooLargeError extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume(); // discard the rest rather than leave the client blocked mid-upload
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function envelope(status: number, code: string, message: string, requestId: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId },
    body: JSON.stringify({ error: { code, message, request_id: requestId } }),
  };
}

/**
 * API Gateway's reading of a handler result (format 2.0): an object with `statusCode` is a
 * structured response; anything else is a 200 JSON body.
 */
function normalize(result: APIGatewayProxyResultV2): APIGatewayProxyStructuredResultV2 {
  if (typeof result === 'object' && result !== null && 'statusCode' in result) return result;
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: typeof result === 'string' ? result : JSON.stringify(result),
  };
}

function writeResult(
  res: ServerResponse,
  result: APIGatewayProxyStructuredResultV2 & { multiValueHeaders?: Record<string, (string | number | boolean)[]> },
  requestId: string,
  closeConnection = false,
): void {
  const body = result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  res.statusCode = result.statusCode ?? 200;
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) res.setHeader(name, values.map(String));
  if (result.cookies?.length) {
    const existing = res.getHeader('set-cookie');
    const before = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
    res.setHeader('set-cookie', [...before, ...result.cookies]);
  }
  res.setHeader('apigw-requestid', requestId);
  res.setHeader('content-length', body.length);
  if (closeConnection) res.setHeader('connection', 'close');
  res.end(body);
}

/**
 * Bytes of `result` as Lambda serializes it when they pass `limit`, otherwise undefined. A
 * string's JSON takes at most 6 bytes per UTF-16 unit (`\u00XX`), so a body within about a
 * sixth of the limit surely fits, and is not serialized once more only to be measured.
 */
function bytesPastLimit(result: APIGatewayProxyStructuredResultV2, limit: number): number | undefined {
  // The body's key, its quotes and a comma.
  const bodyBound = 6 * (result.body?.length ?? 0) + 16;
  if (Buffer.byteLength(JSON.stringify({ ...result, body: undefined })) + bodyBound <= limit) return undefined;
  const size = Buffer.byteLength(JSON.stringify(result));
  return size > limit ? size : undefined;
}

function logError(message: string, fields: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ level: 'ERROR', source: 'local-http', message, ...fields })}\n`);
}

export async function startHttpServer(options: HttpServerOptions = {}): Promise<LocalHttpServer> {
  const matcher = routeMatcher(routeList);
  const host = options.host ?? '127.0.0.1';

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The console shares the origin with the API, as behind CloudFront (lib/console.ts).
    try {
      if (options.clientFiles && (await serveClientFiles(req, res, options.clientFiles))) return;
      if (await serveConsole(req, res, options.consoleDir)) return;
    } catch (error) {
      logError('console asset failed', { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) res.writeHead(500).end();
      return;
    }
    const requestId = randomUUID();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const rawPath = url.split('?')[0] ?? '/';
    const match = matcher.match(method, rawPath);
    const handlerName = match ? match.route.handler : notFoundHandler;
    const functionName = match ? match.route.id : 'NotFound';
    let body: Buffer;
    try {
      body = await readBody(req, MAX_REQUEST_BODY_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        const message = `request body exceeds ${MAX_REQUEST_BODY_BYTES} bytes`;
        writeResult(res, envelope(413, 'VALIDATION_ERROR', message, requestId), requestId, true);
      } else {
        res.destroy();
      }
      return;
    }
    const event = toApiGatewayEvent({
      method,
      url,
      rawHeaders: req.rawHeaders,
      body,
      sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
      httpVersion: req.httpVersion,
      requestId,
      routeKey: match ? `${match.route.method} ${match.route.path}` : '$default',
      ...(match ? { pathParameters: match.pathParameters } : {}),
    });
    try {
      const handler = await loadHandler<APIGatewayProxyEventV2, APIGatewayProxyResultV2>('http', handlerName);
      const context = lambdaContext(functionName, match?.route.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS);
      const result = normalize(await (handler as HttpHandler)(event, context));
      const size = bytesPastLimit(result, MAX_LAMBDA_RESPONSE_BYTES);
      if (size !== undefined) {
        logError('response exceeds the Lambda response limit', { function: functionName, bytes: size, limit: MAX_LAMBDA_RESPONSE_BYTES, request_id: requestId });
        writeResult(res, envelope(502, 'INTERNAL_ERROR', 'internal error', requestId), requestId);
        return;
      }
      writeResult(res, result, requestId);
    } catch (error) {
      // Handlers answer errors themselves (the middleware's envelope); reaching here is a bug.
      logError('handler threw', {
        request_id: requestId,
        handler: `lambdas/http/${handlerName}.ts`,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      if (!res.headersSent) {
        writeResult(res, envelope(500, 'INTERNAL_ERROR', 'internal error', requestId), requestId);
      } else {
        res.destroy();
      }
    }
  }

  // HTTP keep-alive is Node's default (5 s idle timeout); keepAlive here adds TCP keep-alive probes.
  const server: Server = createServer({ keepAlive: true }, (req, res) => {
    // While a request is in flight, the workers' table and object store calls wait (background-priority.ts).
    const answered = backgroundGate.apiRequest();
    void handle(req, res).finally(answered);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Idle keep-alive connections would hold close() open until they time out.
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 2_000).unref();
    }));

  return { url: `http://${host}:${port}`, port, close };
}
