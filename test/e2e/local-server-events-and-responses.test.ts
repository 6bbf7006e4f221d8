/**
 * The local API Gateway (local/http-server.ts + apigw-event.ts): route matching, the payload
 * format 2.0 event a handler receives, and how a handler's result becomes the HTTP response.
 * The route table and handler modules are replaced by echo handlers here, so the event can
 * be inspected exactly; the real handlers run in the other local-stack tests.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { request, Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isTextContentType } from '../../local/apigw-event.js';
import { MAX_REQUEST_BODY_BYTES, startHttpServer, type LocalHttpServer } from '../../local/http-server.js';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;

const echo: Handler = async (event, context) => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    event,
    context: { functionName: context.functionName, awsRequestId: context.awsRequestId, remaining: context.getRemainingTimeInMillis() },
  }),
});

const handlers: Record<string, Handler> = {
  echo,
  'not-found': async (event, context) => ({ ...((await echo(event, context)) as object), statusCode: 404 }),
  throws: async () => {
    throw new Error('handler bug');
  },
  binary: async () => ({
    statusCode: 201,
    headers: { 'content-type': 'application/octet-stream', 'x-number': 7 },
    multiValueHeaders: { 'x-multi': ['a', 'b'] },
    cookies: ['a=1; Path=/', 'b=2; HttpOnly'],
    body: Buffer.from([0, 1, 2, 255]).toString('base64'),
    isBase64Encoded: true,
  }) as APIGatewayProxyResultV2,
  plain: async () => ({ hello: 'world' }) as unknown as APIGatewayProxyResultV2,
  // The size of the body the handler got: an echo of 10 MiB would pass Lambda's 6 MiB response limit.
  measure: async (event) => ({
    statusCode: 200,
    body: JSON.stringify({ bytes: Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8').length }),
  }),
  // A body of `n` times `char`: past Lambda's 6 MiB response limit or not, as Lambda measures it (escaped inside its JSON).
  repeat: async (event) => ({
    statusCode: 200,
    body: (event.queryStringParameters?.char ?? 'a').repeat(Number(event.queryStringParameters?.n ?? 0)),
  }),
};

vi.mock('../../lambdas/routes/routes.js', () => ({
  routeList: [
    { id: 'GetItem', method: 'GET', path: '/v1/items/{item_id}', handler: 'echo', timeoutSeconds: 7 },
    { id: 'PostItem', method: 'POST', path: '/v1/items/{item_id}/parts/{part}', handler: 'echo' },
    { id: 'Literal', method: 'GET', path: '/v1/items/special', handler: 'binary' },
    { id: 'Throws', method: 'GET', path: '/v1/throws', handler: 'throws' },
    { id: 'Plain', method: 'GET', path: '/v1/plain', handler: 'plain' },
    { id: 'Measure', method: 'POST', path: '/v1/measure', handler: 'measure' },
    { id: 'Repeat', method: 'GET', path: '/v1/repeat', handler: 'repeat' },
  ],
  notFoundHandler: 'not-found',
}));
vi.mock('../../local/handler-modules.js', () => ({
  loadHandler: async (_kind: string, name: string) => handlers[name],
}));

let server: LocalHttpServer;
beforeAll(async () => {
  server = await startHttpServer({ port: 0 });
});
afterAll(() => server.close());

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  reusedSocket: boolean;
}

/** node:http rather than fetch: repeated headers must reach the server as separate lines. */
function send(
  method: string,
  path: string,
  options: { headers?: string[]; body?: Buffer | string; agent?: Agent } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // An array of raw headers replaces Node's defaults, Host included.
    const headers = ['Host', new URL(server.url).host, ...(options.headers ?? [])];
    const req = request(`${server.url}${path}`, { method, headers, agent: options.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), reusedSocket: req.reusedSocket }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

async function echoed(method: string, path: string, options: Parameters<typeof send>[2] = {}) {
  const response = await send(method, path, options);
  return { response, ...(JSON.parse(response.body.toString()) as { event: APIGatewayProxyEventV2; context: Record<string, unknown> }) };
}

describe('route matching', () => {
  it('passes URL-decoded path parameters and the route key', async () => {
    const { event, context } = await echoed('GET', '/v1/items/a%20b%2Fc');
    expect(event.routeKey).toBe('GET /v1/items/{item_id}');
    expect(event.requestContext.routeKey).toBe('GET /v1/items/{item_id}');
    expect(event.pathParameters).toEqual({ item_id: 'a b/c' });
    expect(event.rawPath).toBe('/v1/items/a%20b%2Fc');
    expect(context.functionName).toBe('GetItem');
  });

  it('prefers a literal segment over a parameter', async () => {
    const response = await send('GET', '/v1/items/special');
    expect(response.status).toBe(201);
  });

  it.each([
    ['a trailing slash', 'GET', '/v1/items/x/'],
    // Under the API's prefixes: a GET elsewhere is the console's (console/serving.ts), as behind CloudFront.
    ['an unknown path', 'GET', '/v1/nothing'],
    ['a wrong method', 'DELETE', '/v1/items/x'],
    ['an empty parameter', 'GET', '/v1/items/'],
  ])('sends %s to the $default handler', async (_, method, path) => {
    const { response, event, context } = await echoed(method, path);
    expect(response.status).toBe(404);
    expect(event.routeKey).toBe('$default');
    expect(event.requestContext.routeKey).toBe('$default');
    expect(event.pathParameters).toBeUndefined();
    expect(event.rawPath).toBe(path);
    expect(context.functionName).toBe('NotFound');
  });
});

describe('the payload format 2.0 event', () => {
  it('carries method, path, query, headers, cookies and request context as API Gateway does', async () => {
    const { response, event, context } = await echoed('GET', '/v1/items/x?a=1&b=x%20y&a=2', {
      headers: ['X-Multi', 'one', 'x-multi', 'two', 'Cookie', 'c1=v1; c2=v2', 'User-Agent', 'test-agent/1.0'],
    });
    expect(event.version).toBe('2.0');
    expect(event.rawQueryString).toBe('a=1&b=x%20y&a=2');
    expect(event.queryStringParameters).toEqual({ a: '1,2', b: 'x y' });
    expect(event.headers['x-multi']).toBe('one,two');
    expect(event.headers['user-agent']).toBe('test-agent/1.0');
    expect(event.headers.host).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(event.headers).not.toHaveProperty('cookie');
    expect(event.cookies).toEqual(['c1=v1', 'c2=v2']);
    expect(event.isBase64Encoded).toBe(false);
    expect(event).not.toHaveProperty('body');
    const rc = event.requestContext;
    expect(rc).toMatchObject({
      accountId: 'local',
      apiId: 'local',
      domainName: '127.0.0.1',
      stage: '$default',
      http: { method: 'GET', path: '/v1/items/x', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test-agent/1.0' },
    });
    expect(rc.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers['apigw-requestid']).toBe(rc.requestId);
    expect(Math.abs(rc.timeEpoch - Date.now())).toBeLessThan(5_000);
    expect(rc.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    // The route's 7 s timeout is the context's deadline.
    expect(context.remaining).toBeGreaterThan(6_000);
    expect(context.remaining).toBeLessThanOrEqual(7_000);
    expect(context.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('omits queryStringParameters, cookies and pathParameters when there are none', async () => {
    const { event } = await echoed('GET', '/v1/none');
    expect(event.rawQueryString).toBe('');
    expect(event).not.toHaveProperty('queryStringParameters');
    expect(event).not.toHaveProperty('cookies');
    expect(event).not.toHaveProperty('pathParameters');
  });

  it('passes a JSON body as text', async () => {
    const body = JSON.stringify({ name: 'zoë', n: 1 });
    const { event } = await echoed('POST', '/v1/items/1/parts/2', { headers: ['Content-Type', 'application/json'], body });
    expect(event.pathParameters).toEqual({ item_id: '1', part: '2' });
    expect(event.isBase64Encoded).toBe(false);
    expect(event.body).toBe(body);
  });

  it('passes a binary body as base64', async () => {
    const bytes = Buffer.from([0, 159, 146, 150, 255]);
    const { event } = await echoed('POST', '/v1/items/1/parts/2', {
      headers: ['Content-Type', 'application/octet-stream'],
      body: bytes,
    });
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body!, 'base64')).toEqual(bytes);
  });

  it('classifies text media types as API Gateway does', () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/problem+json', 'application/x-www-form-urlencoded']) {
      expect(isTextContentType(type), type).toBe(true);
    }
    for (const type of [undefined, 'application/octet-stream', 'image/png', 'application/jsonx', 'multipart/form-data']) {
      expect(isTextContentType(type), String(type)).toBe(false);
    }
  });
});

describe('the response', () => {
  it('writes status, headers, multi-value headers, cookies and a base64 body as bytes', async () => {
    const response = await send('GET', '/v1/items/special');
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(response.headers['x-number']).toBe('7');
    expect(response.headers['x-multi']).toBe('a, b');
    expect(response.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; HttpOnly']);
    expect(response.body).toEqual(Buffer.from([0, 1, 2, 255]));
  });

  it('answers a non-structured result as a 200 JSON body, as API Gateway infers it', async () => {
    const response = await send('GET', '/v1/plain');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(JSON.parse(response.body.toString())).toEqual({ hello: 'world' });
  });

  it('answers 500 INTERNAL_ERROR in the error envelope when a handler throws', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const response = await send('GET', '/v1/throws');
      expect(response.status).toBe(500);
      const body = JSON.parse(response.body.toString()) as { error: { code: string; message: string; request_id: string } };
      expect(body.error.code).toBe('INTERNAL_ERROR');
      expect(body.error.request_id).toBe(response.headers['apigw-requestid']);
      expect(body.error.message).not.toContain('handler bug');
      expect(stderr).toHaveBeenCalledWith(expect.stringContaining('handler bug'));
    } finally {
      stderr.mockRestore();
    }
  });

  it("answers 502 INTERNAL_ERROR for a result past Lambda's 6 MiB response limit as Lambda serializes it, and sends one just within it", async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      // 3.5 MiB of quotes: 7 MiB once escaped inside the result's JSON.
      const quotes = await send('GET', `/v1/repeat?char=${encodeURIComponent('"')}&n=${3.5 * 1024 * 1024}`);
      expect(quotes.status).toBe(502);
      expect((JSON.parse(quotes.body.toString()) as { error: { code: string } }).error.code).toBe('INTERNAL_ERROR');
      expect(stderr).toHaveBeenCalledWith(expect.stringContaining('exceeds the Lambda response limit'));
      // 1.5 MiB of quotes (3 MiB escaped) and 5.9 MiB of letters fit.
      for (const [char, n] of [['"', 1.5 * 1024 * 1024], ['a', Math.floor(5.9 * 1024 * 1024)]] as const) {
        const fits = await send('GET', `/v1/repeat?char=${encodeURIComponent(char)}&n=${n}`);
        expect(fits.status).toBe(200);
        expect(fits.body.length).toBe(n);
      }
    } finally {
      stderr.mockRestore();
    }
  });

  it('refuses a body over 10 MiB with 413 VALIDATION_ERROR', async () => {
    const response = await send('POST', '/v1/items/1/parts/2', {
      headers: ['Content-Type', 'application/octet-stream'],
      body: Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1),
    });
    expect(response.status).toBe(413);
    const body = JSON.parse(response.body.toString()) as { error: { code: string; request_id: string } };
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.request_id).toBe(response.headers['apigw-requestid']);
  });

  it('refuses an oversized chunked body (no Content-Length) too', async () => {
    const response = await send('POST', '/v1/items/1/parts/2', {
      headers: ['Content-Type', 'application/octet-stream', 'Transfer-Encoding', 'chunked'],
      body: Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1),
    });
    expect(response.status).toBe(413);
  });

  it('accepts a body of exactly 10 MiB', async () => {
    const response = await send('POST', '/v1/measure', {
      headers: ['Content-Type', 'application/octet-stream'],
      body: Buffer.alloc(MAX_REQUEST_BODY_BYTES, 1),
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString())).toEqual({ bytes: MAX_REQUEST_BODY_BYTES });
  });

  it('keeps connections alive', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await send('GET', '/v1/plain', { agent });
      const second = await send('GET', '/v1/plain', { agent });
      expect(second.reusedSocket).toBe(true);
    } finally {
      agent.destroy();
    }
  });
});
