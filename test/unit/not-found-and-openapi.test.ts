// Unknown paths and wrong methods get the docs/API.md §7 envelope; the OpenAPI document covers
// exactly the route table.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as notFound } from '../../lambdas/http/public/not-found.js';
import { openApiDocument } from '../../lambdas/http/openapi-document.js';
import { routeMatcher } from '../../lambdas/routes/route-match.js';
import { routeList } from '../../lambdas/routes/routes.js';

function request(method: string, path: string): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: {},
    requestContext: { requestId: 'rid-1', http: { method, path } } as APIGatewayProxyEventV2['requestContext'],
    isBase64Encoded: false,
  };
}

describe('not-found handler', () => {
  it('answers an unknown path with NOT_FOUND 404', async () => {
    const res = await notFound(request('GET', '/v1/nope'));
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(String(res.body))).toEqual({
      error: { code: 'NOT_FOUND', message: 'no route for GET /v1/nope', request_id: 'rid-1' },
    });
    expect(res.headers?.['x-request-id']).toBe('rid-1');
  });

  it('answers a wrong method with NOT_FOUND and an Allow header', async () => {
    const res = await notFound(request('DELETE', '/v1/health'));
    expect(res.statusCode).toBe(404);
    expect(res.headers?.allow).toBe('GET');
    expect(JSON.parse(String(res.body)).error.message).toMatch(/DELETE is not supported on \/v1\/health; use GET/);
  });
});

describe('route matcher', () => {
  const matcher = routeMatcher([
    ...routeList,
    { ...routeList[0]!, id: 'Param', path: '/v1/health/{check}' },
  ]);

  it('prefers literal segments over parameters and decodes parameters', () => {
    expect(matcher.match('GET', '/v1/health/deep')?.route.id).toBe('DeepHealth');
    expect(matcher.match('GET', '/v1/health/a%20b')).toMatchObject({ route: { id: 'Param' }, pathParameters: { check: 'a b' } });
  });

  it('does not match a trailing slash or a malformed escape', () => {
    expect(matcher.match('GET', '/v1/health/')).toBeUndefined();
    expect(matcher.match('GET', '/v1/health/%E0%A4%A')).toBeUndefined();
  });
});

describe('OpenAPI document', () => {
  const document = openApiDocument(routeList, '9.9.9') as {
    openapi: string;
    info: { version: string };
    paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  };

  it('is OpenAPI 3.1 and describes every route exactly once', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('9.9.9');
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(operations.sort()).toEqual(routeList.map((r) => `${r.method} ${r.path} ${r.id}`).sort());
  });

  it('gives each operation its success response and the error envelope', () => {
    for (const route of routeList) {
      const op = document.paths[route.path]![route.method.toLowerCase()]!;
      expect(Object.keys(op.responses)).toEqual([String(route.response.status), 'default']);
    }
  });

  it('has unique operation ids', () => {
    const ids = routeList.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
