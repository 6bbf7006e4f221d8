// HTTP conventions (docs/ARCHITECTURE.md, Conventions; docs/API.md §7), exercised on the real middleware stack:
// JSON parsing, zod messages naming the field, the docs/API.md §7 envelope, request ids.
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LedgerError, conflict } from '../../lambdas/shared/errors.js';
import { defineHandler } from '../../lambdas/http/define-handler.js';
import { route } from '../../lambdas/routes/route-spec.js';
import { useLocalConfig } from '../support/local-config.js';

const echoRoute = route({
  id: 'Echo',
  method: 'POST',
  path: '/v1/echo/{name}',
  handler: 'test/echo',
  auth: 'public',
  summary: 'test route',
  request: {
    params: z.object({ name: z.string().min(2) }),
    query: z.object({ limit: z.coerce.number().int().min(1).max(10).default(5) }),
    body: z.object({ keys: z.array(z.object({ kid: z.string() })), mode: z.enum(['ok', 'conflict', 'crash']) }).strict(),
  },
  response: { status: 201, body: z.object({ name: z.string(), limit: z.number(), kids: z.array(z.string()) }) },
  uses: [],
});

const echo = defineHandler(echoRoute, async ({ params, query, body }) => {
  if (body.mode === 'conflict') throw conflict('already there');
  if (body.mode === 'crash') throw new Error('secret internal detail arn:aws:dynamodb:eu-west-1:123456789012');
  return { body: { name: params.name, limit: query.limit, kids: body.keys.map((key) => key.kid) } };
});

const bodiless = defineHandler(
  route({ id: 'NoBody', method: 'POST', path: '/v1/nobody', handler: 'test/nobody', auth: 'public', summary: 't', response: { status: 200, body: z.object({ ok: z.boolean() }) }, uses: [] }),
  async () => ({ body: { ok: true } }),
);

function event(overrides: Partial<APIGatewayProxyEventV2> & { body?: string }): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /v1/echo/{name}',
    rawPath: '/v1/echo/alice',
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    pathParameters: { name: 'alice' },
    requestContext: { requestId: 'req-123', http: { method: 'POST', path: '/v1/echo/alice' } } as APIGatewayProxyEventV2['requestContext'],
    isBase64Encoded: false,
    ...overrides,
  };
}

const context = {} as Context;

async function call(handler: typeof echo, e: APIGatewayProxyEventV2) {
  const result = await handler(e, context);
  return { status: result.statusCode, headers: result.headers ?? {}, json: JSON.parse(String(result.body)) };
}

beforeAll(() => useLocalConfig({ POWERTOOLS_LOG_LEVEL: 'SILENT' }));

describe('request handling', () => {
  it('validates and passes params, query and body to the route function', async () => {
    const res = await call(echo, event({ body: JSON.stringify({ keys: [{ kid: 'k1' }], mode: 'ok' }), queryStringParameters: { limit: '7' } }));
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ name: 'alice', limit: 7, kids: ['k1'] });
    expect(res.headers['x-request-id']).toBe('req-123');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('answers malformed JSON with VALIDATION_ERROR 400 in the envelope', async () => {
    const res = await call(echo, event({ body: '{"keys": [' }));
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('VALIDATION_ERROR');
    expect(res.json.error.message).toMatch(/not valid JSON/);
    expect(res.json.error.request_id).toBe('req-123');
    expect(res.headers['x-request-id']).toBe('req-123');
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], [undefined]])(
    'rejects a body with content type %s',
    async (contentType) => {
      const headers = contentType ? { 'content-type': contentType } : {};
      const res = await call(echo, event({ headers, body: '{"keys":[],"mode":"ok"}' }));
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
      expect(res.json.error.message).toMatch(/content-type/);
    },
  );

  it('accepts a JSON content type with parameters and a +json suffix', async () => {
    for (const contentType of ['application/json; charset=utf-8', 'application/merge-patch+json', 'Application/JSON']) {
      const res = await call(echo, event({ headers: { 'Content-Type': contentType }, body: '{"keys":[],"mode":"ok"}' }));
      expect(res.status).toBe(201);
    }
  });

  it('names the failing field in zod errors', async () => {
    const res = await call(echo, event({ body: JSON.stringify({ keys: [{ kid: 1 }], mode: 'ok' }) }));
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/^body\.keys\[0\]\.kid: /);

    const unknown = await call(echo, event({ body: JSON.stringify({ keys: [], mode: 'ok', extra: 1 }) }));
    expect(unknown.json.error.message).toMatch(/extra/);

    const param = await call(echo, event({ pathParameters: { name: 'a' }, body: '{"keys":[],"mode":"ok"}' }));
    expect(param.json.error.message).toMatch(/^params\.name: /);

    const query = await call(echo, event({ queryStringParameters: { limit: '11' }, body: '{"keys":[],"mode":"ok"}' }));
    expect(query.json.error.message).toMatch(/^query\.limit: /);
  });

  it('treats a missing body as missing, not as an empty object', async () => {
    const res = await call(echo, event({}));
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/^body: /);
  });

  it('rejects a body on a route that takes none, and accepts a bare POST there', async () => {
    expect((await call(bodiless, event({ body: '{"a":1}' }))).status).toBe(400);
    expect((await call(bodiless, event({ headers: {} }))).json).toEqual({ ok: true });
  });

  it('maps LedgerError codes to their status, 409 conflicts included', async () => {
    const res = await call(echo, event({ body: '{"keys":[],"mode":"conflict"}' }));
    expect(res.status).toBe(409);
    expect(res.json).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'already there', request_id: 'req-123' } });
  });

  it('never leaks internals of an unexpected error', async () => {
    const res = await call(echo, event({ body: '{"keys":[],"mode":"crash"}' }));
    expect(res.status).toBe(500);
    expect(res.json.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(res.json)).not.toMatch(/secret|arn:aws|123456789012/);
  });

  it('makes up a request id when the event has none', async () => {
    const res = await call(echo, event({ requestContext: {} as APIGatewayProxyEventV2['requestContext'], body: '{' }));
    expect(res.json.error.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-request-id']).toBe(res.json.error.request_id);
  });

  it('reads base64-encoded bodies', async () => {
    const body = Buffer.from('{"keys":[{"kid":"z"}],"mode":"ok"}').toString('base64');
    const res = await call(echo, event({ body, isBase64Encoded: true }));
    expect(res.json.kids).toEqual(['z']);
  });

  it('keeps LedgerError headers such as Retry-After', async () => {
    const limited = defineHandler(echoRoute, async () => {
      throw new LedgerError('RATE_LIMITED', 'slow down', { headers: { 'retry-after': '2' } });
    });
    const res = await call(limited, event({ body: '{"keys":[],"mode":"ok"}' }));
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('2');
  });
});
