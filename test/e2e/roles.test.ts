/**
 * Every route of the route table, sent with no token, a
 * malformed token, an expired token, each of the five roles, a user without an
 * organization, the wrong kind of token and a token of another organization, answers
 * 401/403/allowed exactly as docs/API.md §4/§5 lists, and no route answers another
 * organization's data.
 *
 * The routes come from `routeList`, so routes added later are covered without editing this
 * file. Their allowed roles are checked twice: against docs/API.md's tables (SPEC_AUTH below,
 * for every endpoint docs/API.md shows) and by sending requests. Requests carry no body and,
 * except for reads, ids that exist nowhere, so an allowed caller gets 400/404/409 instead
 * of changing anything; only 401 and 403 mean "refused by auth".
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMINS, AGENT_WRITERS, ALL_ROLES, AUDITORS, ROLES, type Role } from '../../lambdas/shared/roles.js';
import type { RouteAuth, RouteSpec } from '../../lambdas/routes/route-spec.js';
import { routeList } from '../../lambdas/routes/routes.js';
import { http, type HttpResult } from '../support/http-client.js';
import { seedOrg, seedToken, seedUser, type SeededUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { keyBody, newKey } from '../support/ledger-fixtures.js';

/** docs/API.md §4 Auth columns (and §5), plus the endpoints §4 implies. */
const SPEC_AUTH: Record<string, RouteAuth> = {
  'POST /api/auth/sign-up/email': 'public',
  'POST /api/auth/sign-in/email': 'public',
  'POST /api/auth/sign-in/social': 'public',
  'GET /api/auth/get-session': 'optional',
  // Better Auth's email verification (docs/API.md §4.1 "a verification email is sent"): public, like sign-up.
  'GET /api/auth/verify-email': 'public',
  'POST /api/auth/send-verification-email': 'public',
  'GET /v1/auth/me': 'user',
  'POST /v1/auth/refresh': 'session',
  'POST /v1/auth/token': 'session',
  'POST /v1/auth/rotate': 'api_token',
  'GET /v1/onboarding/status': 'user',
  'POST /v1/onboarding/personal': 'user',
  'POST /v1/onboarding/organization': 'user',
  'POST /v1/agents/register': AGENT_WRITERS,
  'GET /v1/agents': ALL_ROLES,
  'GET /v1/agents/{agent_id}': ALL_ROLES,
  'PATCH /v1/agents/{agent_id}': AGENT_WRITERS,
  'DELETE /v1/agents/{agent_id}': ADMINS,
  'POST /v1/agents/{agent_id}/freeze': ADMINS,
  'POST /v1/agents/{agent_id}/unfreeze': ADMINS,
  'POST /v1/agents/{agent_id}/revoke': ADMINS,
  'GET /v1/members': ALL_ROLES,
  'GET /v1/members/invitations': ADMINS,
  'GET /v1/agents/{agent_id}/assignments': ADMINS,
  'POST /v1/agents/{agent_id}/assignments': ADMINS,
  'DELETE /v1/agents/{agent_id}/assignments/{user_id}': ADMINS,
  // "the user themselves, org_owner, security_admin": the route admits all; see OTHER_USER_ROLES.
  'GET /v1/members/{user_id}/agents': ALL_ROLES,
  'POST /v1/operations': AGENT_WRITERS,
  'GET /v1/operations/{operation_id}': ALL_ROLES,
  'POST /v1/operations/{operation_id}/verify': ALL_ROLES,
  'POST /v1/operations/{operation_id}/erase-payload': ['org_owner'],
  'POST /v1/audit/query': AUDITORS,
  'GET /v1/admin/events': AUDITORS,
  'GET /v1/epochs': ALL_ROLES,
  'GET /v1/epochs/{epoch_id}': ALL_ROLES,
  'POST /v1/exports': AUDITORS,
  'GET /v1/exports': AUDITORS,
  'GET /v1/exports/{export_id}': AUDITORS,
  'GET /v1/exports/{export_id}/download': AUDITORS,
  'GET /v1/webhooks': ADMINS,
  'POST /v1/webhooks': ADMINS,
  'DELETE /v1/webhooks/{webhook_id}': ADMINS,
  // Beyond docs/API.md §4.9 (docs/WEBHOOKS.md): the same roles as the §4.9 routes.
  'GET /v1/webhooks/{webhook_id}': ADMINS,
  'PATCH /v1/webhooks/{webhook_id}': ADMINS,
  'POST /v1/webhooks/{webhook_id}/test': ADMINS,
  'GET /v1/webhooks/{webhook_id}/deliveries': ADMINS,
  'POST /v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver': ADMINS,
  'GET /.well-known/service/jwks.json': 'public',
  'GET /v1/health': 'public',
  'GET /v1/health/deep': 'public',
  // docs/API.md §4.4: invitations.
  'PATCH /v1/organization': ADMINS,
  'POST /v1/members/invitations': ADMINS,
  'DELETE /v1/members/invitations/{invitation_id}': ADMINS,
  'GET /v1/invitations': 'user',
  'POST /v1/invitations/{invitation_id}/accept': 'user',
  'PATCH /v1/members/{user_id}': ADMINS,
  'DELETE /v1/members/{user_id}': ADMINS,
};

/** Routes where asking about another user narrows the roles (docs/API.md §4.4 "the user themselves, org_owner, security_admin"). */
const OTHER_USER_ROLES: Record<string, readonly Role[]> = { 'GET /v1/members/{user_id}/agents': ADMINS };

const keyOf = (route: RouteSpec) => `${route.method} ${route.path}`;
const isRefused = (status: number) => status === 401 || status === 403;

const stack = useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '100000', LEDGER_WEBHOOK_ALLOW_LOOPBACK: '1' } });
let orgA: string;
let orgAName: string;
const users = {} as Record<Role, SeededUser>;
let outsider: SeededUser;
let expiredToken: string;
let agentId: string;
let invitationId: string;
let exportId: string;
let webhookId: string;
/** Strings only org A's data contains: none may reach org B's caller. */
let markers: string[];

beforeAll(async () => {
  // Hundreds of requests in a few seconds from one organization: keep the rate limit out of the way.
  orgAName = `Org A ${randomUUID()}`;
  orgA = await seedOrg(orgAName);
  for (const role of ROLES) users[role] = await seedUser(orgA, role);
  const orgB = await seedOrg('Org B');
  outsider = await seedUser(orgB, 'org_owner');
  expiredToken = await seedToken(users.org_owner.userId, 'api', { expires_at: Date.now() - 1000 });

  const owner = users.org_owner.token;
  agentId = `roles-agent-${randomUUID().slice(0, 8)}`;
  const displayName = `secret-display-${randomUUID()}`;
  const registered = await http(stack.baseUrl, 'POST', '/v1/agents/register', {
    token: owner,
    body: { agent_id: agentId, display_name: displayName, integration_type: 'sdk', keys: [keyBody(newKey('k1'), orgA, agentId)] },
  });
  expect(registered.status).toBe(200);
  const invited = await http(stack.baseUrl, 'POST', '/v1/members/invitations', { token: owner, body: { email: `invitee-${randomUUID()}@example.test`, role: 'readonly_investigator' } });
  expect(invited.status).toBe(201);
  invitationId = invited.json.invitation.invitation_id;
  const exported = await http(stack.baseUrl, 'POST', '/v1/exports', { token: owner, body: { start_time: Date.now() - 60_000, end_time: Date.now(), format: 'json' } });
  expect(exported.status).toBe(201);
  exportId = exported.json.export.export_id;
  // A loopback receiver (the server allows loopback webhooks, LEDGER_WEBHOOK_ALLOW_LOOPBACK):
  // registration needs no DNS, so the same holds against a running server (ledger-url.ts).
  const hookHost = `roles-${randomUUID().slice(0, 8)}`;
  const webhook = await http(stack.baseUrl, 'POST', '/v1/webhooks', {
    token: owner,
    body: { endpoint_url: `http://127.0.0.1:9/${hookHost}`, events: ['epoch.created'], secret: 'roles-test-secret-0123' },
  });
  expect(webhook.status).toBe(201);
  webhookId = webhook.json.webhook.webhook_id;
  markers = [orgA, orgAName, displayName, hookHost, ...ROLES.map((role) => users[role].email), invited.json.invitation.email];
});

/**
 * Path parameters: reads get org A's real objects (so a wrong answer would have data in
 * it); writes get ids that exist nowhere (so an allowed caller changes nothing).
 */
function pathOf(route: RouteSpec): string {
  const read = route.method === 'GET';
  const real: Record<string, string> = { agent_id: agentId, user_id: users.org_owner.userId, invitation_id: invitationId, export_id: exportId, webhook_id: webhookId, provider: 'google' };
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(read && real[name] ? real[name] : `none-${randomUUID()}`));
}

/** A token of `user` of the kind the route wants (fresh for session/api_token routes, which may end the token they are given). */
async function tokenFor(route: RouteSpec, user: SeededUser): Promise<string> {
  if (route.auth === 'session') return seedToken(user.userId, 'session');
  if (route.auth === 'api_token') return seedToken(user.userId, 'api');
  return user.token;
}

function send(route: RouteSpec, token?: string): Promise<HttpResult> {
  return http(stack.baseUrl, route.method, pathOf(route), token ? { token } : {});
}

function allowedRoles(route: RouteSpec): readonly Role[] {
  const auth = SPEC_AUTH[keyOf(route)] ?? route.auth;
  if (auth === 'public' || auth === 'optional') return ROLES;
  if (typeof auth === 'string') return ROLES; // user, session, api_token: any role with the right token kind
  return OTHER_USER_ROLES[keyOf(route)] ?? auth;
}

const publicRoutes = routeList.filter((route) => route.auth === 'public');
const protectedRoutes = routeList.filter((route) => route.auth !== 'public');

describe('the route table agrees with docs/API.md', () => {
  it.each(routeList.filter((route) => SPEC_AUTH[keyOf(route)] !== undefined).map((route) => [keyOf(route), route] as const))('%s', (_, route) => {
    const spec = SPEC_AUTH[keyOf(route)]!;
    if (typeof spec === 'string') expect(route.auth).toBe(spec);
    else expect([...(route.auth as readonly Role[])].sort()).toEqual([...spec].sort());
  });
});

describe('public routes answer without a token', () => {
  it.each(publicRoutes.map((route) => [keyOf(route), route] as const))('%s', async (_, route) => {
    expect(isRefused((await send(route)).status)).toBe(false);
  });
});

describe.each(protectedRoutes.map((route) => [keyOf(route), route] as const))('%s', (_, route) => {
  const optional = route.auth === 'optional';

  it('no token, a malformed token or an expired token: 401 (optional routes: no session, HTTP 200 null)', async () => {
    for (const token of [undefined, 'not-a-token', `alt_${'A'.repeat(43)}`, expiredToken]) {
      const res = await send(route, token);
      if (optional) {
        expect(res.status).toBe(200);
        expect(res.text).toBe('null');
      } else {
        expect(res.status, `token ${token?.slice(0, 8)}`).toBe(401);
        expect(res.json.error.code).toBe('UNAUTHORIZED');
      }
    }
  });

  it('each role: allowed exactly as docs/API.md lists, others FORBIDDEN', async () => {
    const allowed = allowedRoles(route);
    for (const role of ROLES) {
      const res = await send(route, await tokenFor(route, users[role]));
      if (allowed.includes(role)) {
        expect(isRefused(res.status), `${role} got ${res.status} ${res.text.slice(0, 200)}`).toBe(false);
        expect(res.status, `${role}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
      } else {
        expect(res.status, role).toBe(403);
        expect(res.json.error.code).toBe('FORBIDDEN');
      }
    }
  });

  it('the wrong kind of token: FORBIDDEN on session-only and API-token-only routes', async () => {
    if (route.auth !== 'session' && route.auth !== 'api_token') {
      // Every other route treats both kinds alike.
      const bySession = await send(route, await seedToken(users.org_owner.userId, 'session'));
      const byApiToken = await send(route, users.org_owner.token);
      expect(isRefused(bySession.status)).toBe(isRefused(byApiToken.status));
      return;
    }
    const wrong = route.auth === 'session' ? await seedToken(users.org_owner.userId, 'api') : await seedToken(users.org_owner.userId, 'session');
    const res = await send(route, wrong);
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('FORBIDDEN');
  });

  it('a user without an organization: only user-level routes', async () => {
    // A fresh one each time: onboarding routes, when allowed, give the user an organization.
    // Sessions only: an API token is issued within an organization (POST /v1/auth/token,
    // docs/API.md §4.1), so the API-token-only routes refuse a session as the wrong kind.
    const homeless = await seedUser(null, 'org_owner', 'session');
    const res = await send(route, route.auth === 'api_token' ? homeless.token : await tokenFor(route, homeless));
    if (Array.isArray(route.auth) || route.auth === 'api_token') expect(res.status).toBe(403);
    else if (route.auth === 'user' || optional) expect(isRefused(res.status)).toBe(false);
    else expect(res.status).toBeLessThan(500);
  });

  it("another organization's token never gets this organization's data", async () => {
    const res = await send(route, await tokenFor(route, outsider));
    for (const marker of markers) expect(res.text, `${res.status} leaks ${marker}`).not.toContain(marker);
    if (route.method === 'GET' && /\{(agent_id|user_id|invitation_id|export_id|webhook_id)\}/.test(route.path)) {
      // Org A's ids named in the path are as unknown to org B as ids that do not exist.
      expect(res.status >= 400, `${res.status} ${res.text.slice(0, 200)}`).toBe(true);
    }
  });
});

describe('the marker check can fail', () => {
  it("org A's own owner does see org A's data", async () => {
    const res = await http(stack.baseUrl, 'GET', '/v1/members', { token: users.org_owner.token });
    expect(markers.some((marker) => res.text.includes(marker))).toBe(true);
  });

  it('a member asking about another member\'s agents is refused unless admin (docs/API.md §4.4)', async () => {
    const path = `/v1/members/${users.integration_engineer.userId}/agents`;
    expect((await http(stack.baseUrl, 'GET', path, { token: users.integration_engineer.token })).status).toBe(200);
    expect((await http(stack.baseUrl, 'GET', path, { token: users.readonly_investigator.token })).status).toBe(403);
    expect((await http(stack.baseUrl, 'GET', path, { token: users.security_admin.token })).status).toBe(200);
  });
});
