// Pure identity policies: the rate limit decision, the callbackURL policy, session and
// state cookie attributes, token formats in the user view.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkCallbackUrl, withError } from '../../lambdas/domain/identity/callback-url.js';
import { profile, sessionUser } from '../../lambdas/domain/identity/user-view.js';
import { BURST_FACTOR, WINDOW_SECONDS, batchSize, grant } from '../../lambdas/domain/rate-limit/request-rate.js';
import { clearedSessionCookie, cookieValue, requestOrigin, sessionCookie, stateCookie } from '../../lambdas/http/auth/cookies.js';
import type { UserItem } from '../../lambdas/store/identity-items.js';
import { useLocalConfig } from '../support/local-config.js';

beforeAll(() => useLocalConfig());

describe('rate limit reservations (100 rps: 200 in a second, 1000 per 10 s, batches of 10)', () => {
  const rps = 100;
  const batch = batchSize(rps);
  const t = 1_700_000_003_250; // 3.25 s into a 10-second window

  it('reserves batches of rps / 10, at least one', () => {
    expect(batch).toBe(10);
    expect(batchSize(3)).toBe(1);
  });

  it('grants the whole batch within the burst and the sustained rate', () => {
    expect(grant({ window: batch, second: batch }, batch, rps, t).granted).toBe(batch);
    expect(grant({ window: 200, second: rps * BURST_FACTOR }, batch, rps, t).granted).toBe(batch);
    expect(grant({ window: rps * WINDOW_SECONDS, second: 10 }, batch, rps, t).granted).toBe(batch);
  });

  it('grants only the part of a batch inside the limits: never more than the limits in total', () => {
    expect(grant({ window: 205, second: 205 }, batch, rps, t).granted).toBe(5);
    expect(grant({ window: 1003, second: 5 }, batch, rps, t).granted).toBe(7);
  });

  it('refuses past the burst until the next second', () => {
    expect(grant({ window: 210, second: 210 }, batch, rps, t)).toEqual({ granted: 0, refusedUntil: 1_700_000_004_000 });
  });

  it('refuses past the window until the window ends', () => {
    expect(grant({ window: 1010, second: 5 }, batch, rps, t)).toEqual({ granted: 0, refusedUntil: 1_700_000_010_000 });
  });
});

describe('callbackURL policy', () => {
  const own = { base: 'https://ledger.example.com', origins: [] };

  it('with no listed origins takes same-origin URLs only: paths and absolute URLs on the service', () => {
    expect(checkCallbackUrl('https://ledger.example.com/done?x=1', own)).toBe('https://ledger.example.com/done?x=1');
    expect(checkCallbackUrl('/app/done?x=1', own)).toBe('https://ledger.example.com/app/done?x=1');
    expect(checkCallbackUrl('/app', { base: 'https://api.example.com/prod', origins: [] })).toBe('https://api.example.com/prod/app');
    expect(() => checkCallbackUrl('https://app.example.com/done', own)).toThrow(/not allowed/);
    expect(() => checkCallbackUrl('http://ledger.example.com/done', own)).toThrow(/not allowed/);
  });

  it.each(['//evil.test/x', '/\\evil.test/x', 'relative', 'javascript:alert(1)', 'data:text/html,hi', 'ftp://x.test/', 'https://u:p@ledger.example.com/', ''])(
    'refuses %j',
    (url) => {
      expect(() => checkCallbackUrl(url, own)).toThrow(/callbackURL/);
    },
  );

  it('adds the origins LEDGER_AUTH_CALLBACK_ORIGINS lists', () => {
    const allowed = { ...own, origins: ['https://app.example.com'] };
    expect(checkCallbackUrl('https://app.example.com/x', allowed)).toBe('https://app.example.com/x');
    expect(checkCallbackUrl('/x', allowed)).toBe('https://ledger.example.com/x');
    expect(() => checkCallbackUrl('https://app.example.com.evil.test/x', allowed)).toThrow(/not allowed/);
    expect(() => checkCallbackUrl('http://app.example.com/x', allowed)).toThrow(/not allowed/);
  });

  it('adds error=<reason> keeping the query', () => {
    expect(withError('https://a.test/p?x=1', 'access_denied')).toBe('https://a.test/p?x=1&error=access_denied');
  });
});

function event(headers: Record<string, string>): APIGatewayProxyEventV2 {
  return { headers, requestContext: { domainName: 'api.example.com' } } as unknown as APIGatewayProxyEventV2;
}

describe('cookies', () => {
  const token = `als_${'a'.repeat(43)}`;

  it('session cookie: HttpOnly, SameSite=Strict, Path=/, Max-Age of the session, Secure over HTTPS only', () => {
    const now = 1_000_000;
    const https = sessionCookie(event({ host: 'api.example.com', 'x-forwarded-proto': 'https' }), token, now + 604_800_000, now);
    expect(https).toBe(`ledger_session=${token}; Path=/; Max-Age=604800; HttpOnly; SameSite=Strict; Secure`);
    const local = sessionCookie(event({ host: '127.0.0.1:3000' }), token, now + 1000, now);
    expect(local).toBe(`ledger_session=${token}; Path=/; Max-Age=1; HttpOnly; SameSite=Strict`);
    expect(clearedSessionCookie(event({ host: 'h' }))).toMatch(/^ledger_session=; Path=\/; Max-Age=0; HttpOnly/);
  });

  it('state cookie: only sent to the callback path, 10 minutes', () => {
    expect(stateCookie(event({ host: 'h' }), 'st')).toBe('ledger_oauth_state=st; Path=/api/auth/callback; Max-Age=600; HttpOnly; SameSite=Lax');
  });

  it('origin from Host and X-Forwarded-Proto; reads cookie values', () => {
    expect(requestOrigin(event({ host: 'api.example.com', 'x-forwarded-proto': 'https' }))).toBe('https://api.example.com');
    expect(requestOrigin(event({ host: '127.0.0.1:3000' }))).toBe('http://127.0.0.1:3000');
    expect(cookieValue(['a=1', ' ledger_oauth_state = x=y ', 'b=2'], 'ledger_oauth_state')).toBe('x=y');
    expect(cookieValue(['a=1'], 'b')).toBeUndefined();
  });
});

describe('user views (docs/API.md §2.7)', () => {
  const user: UserItem = {
    user_id: 'u1',
    email: 'a@example.test',
    name: 'A',
    email_verified: false,
    image: null,
    org_id: null,
    role: 'org_owner',
    status: 'active',
    onboarding_completed: 0,
    created_at: Date.UTC(2025, 0, 2, 3, 4, 5, 6),
    updated_at: Date.UTC(2025, 0, 2, 3, 4, 5, 7),
    idp_subject: 'secret-subject',
  };

  it('session-provider user object: camelCase, ISO 8601 times, no internal fields', () => {
    expect(sessionUser(user)).toEqual({
      id: 'u1',
      email: 'a@example.test',
      name: 'A',
      emailVerified: false,
      image: null,
      createdAt: '2025-01-02T03:04:05.006Z',
      updatedAt: '2025-01-02T03:04:05.007Z',
      org_id: null,
      role: 'org_owner',
      status: 'active',
      onboarding_completed: 0,
    });
  });

  it('profile: ms times, boolean onboarding, current_organization once in one', () => {
    expect(profile(user)).toMatchObject({ user: { created_at: user.created_at, onboarding_completed: false }, current_organization: null });
    expect(profile({ ...user, org_id: 'o1', role: 'security_admin', onboarding_completed: 1 }).current_organization).toEqual({
      org_id: 'o1',
      ba_org_id: 'o1',
      role: 'security_admin',
    });
  });
});
