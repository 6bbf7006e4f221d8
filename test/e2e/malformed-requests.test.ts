// docs/API.md §7: a POST (or PATCH) with broken JSON to ANY route, or a body
// with a non-JSON content type, gets the docs/API.md §7 envelope with VALIDATION_ERROR 400; any
// unknown path gets NOT_FOUND 404 (GET outside /v1, /api and /.well-known is the console, console-serving.test.ts). Covers every route of the table, including ones added later.
import { beforeAll, describe, expect, it } from 'vitest';
import type { RouteSpec } from '../../lambdas/routes/route-spec.js';
import { routeList } from '../../lambdas/routes/routes.js';
import { seedOrg, seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '100000' } });
let tokens: { session: string; api: string };

beforeAll(async () => {
  const orgId = await seedOrg();
  tokens = {
    session: (await seedUser(orgId, 'org_owner', 'session')).token,
    api: (await seedUser(orgId, 'org_owner', 'api')).token,
  };
});

/** A token the route accepts, so the request gets past authentication to body parsing. */
function tokenFor(route: RouteSpec): string | undefined {
  if (route.auth === 'public') return undefined;
  return route.auth === 'session' ? tokens.session : tokens.api;
}

function concretePath(route: RouteSpec): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'provider' ? 'google' : `placeholder-${name}`));
}

async function send(route: RouteSpec, body: string, contentType: string) {
  const token = tokenFor(route);
  const response = await fetch(stack.baseUrl + concretePath(route), {
    method: route.method,
    headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body,
  });
  return { status: response.status, requestId: response.headers.get('x-request-id'), json: (await response.json()) as { error?: { code: string; message: string; request_id: string } } };
}

const withBodies = routeList.filter((route) => route.method === 'POST' || route.method === 'PATCH' || route.method === 'PUT');

describe('every route with a body', () => {
  it('covers the POST and PATCH routes of the table', () => {
    expect(withBodies.length).toBeGreaterThan(20);
  });

  it.each(withBodies.map((route) => [`${route.method} ${route.path}`, route] as const))('%s: broken JSON is VALIDATION_ERROR 400', async (_, route) => {
    const res = await send(route, '{"broken": ', 'application/json');
    expect(res.status).toBe(400);
    expect(res.json.error?.code).toBe('VALIDATION_ERROR');
    expect(res.json.error?.request_id).toBe(res.requestId);
  });

  // The repeated-member scan recursed once per level and overflowed near 5,150 levels: a 500 on every route.
  it.each(withBodies.map((route) => [`${route.method} ${route.path}`, route] as const))('%s: a body nested 5,150 levels deep is VALIDATION_ERROR 400', async (_, route) => {
    const res = await send(route, `{"a":${'['.repeat(5_150)}${']'.repeat(5_150)}}`, 'application/json');
    expect(res.status).toBe(400);
    expect(res.json.error?.code).toBe('VALIDATION_ERROR');
    expect(res.json.error?.message).toContain('nests deeper than 64 levels');
  });

  it.each(withBodies.map((route) => [`${route.method} ${route.path}`, route] as const))('%s: a non-JSON content type is VALIDATION_ERROR 400', async (_, route) => {
    const res = await send(route, 'a=1&b=2', 'application/x-www-form-urlencoded');
    expect(res.status).toBe(400);
    expect(res.json.error?.code).toBe('VALIDATION_ERROR');
  });
});

describe('unknown paths and methods', () => {
  it.each([
    ['GET', '/v1/health/nope'],
    ['GET', '/v1'],
    ['POST', '/v1/does-not-exist'],
    ['DELETE', '/v1/health'],
    ['PUT', '/v1/operations'],
  ])('%s %s is NOT_FOUND 404 in the envelope', async (method, path) => {
    const response = await fetch(stack.baseUrl + path, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{' });
    expect(response.status).toBe(404);
    const json = (await response.json()) as { error: { code: string; request_id: string } };
    expect(json.error.code).toBe('NOT_FOUND');
    expect(json.error.request_id).toBe(response.headers.get('x-request-id'));
  });
});
