/**
 * The whole identity flow: sign-up → sign-in → onboarding → API token → rotation →
 * the old token works during the grace period and fails after it, over HTTP against the
 * local stack (docs/API.md §4.1, §4.2, §5). The grace period is 2 s here (LEDGER_TOKEN_GRACE_SECONDS).
 */
import { describe, expect, it } from 'vitest';
import { cookiePair, uniqueEmail } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const GRACE_SECONDS = 2;
const stack = useLedgerStack({ env: { LEDGER_TOKEN_GRACE_SECONDS: String(GRACE_SECONDS) } });
const call = stack.call;


const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('sign-up → sign-in → onboarding → API token → rotation', () => {
  it('walks the whole flow, and the rotated token dies when its grace period ends', async () => {
    const email = uniqueEmail('walk');
    const signUp = await call('POST', '/api/auth/sign-up/email', { body: { name: 'Walker', email, password: 'correct horse' } });
    expect(signUp.status).toBe(200);
    expect(signUp.json.token).toBeNull();
    expect(signUp.json.user).toMatchObject({
      email,
      name: 'Walker',
      emailVerified: false,
      image: null,
      org_id: null,
      role: 'org_owner',
      status: 'active',
      onboarding_completed: 0,
    });
    expect(new Date(signUp.json.user.createdAt).toISOString()).toBe(signUp.json.user.createdAt);
    expect(new Date(signUp.json.user.updatedAt).toISOString()).toBe(signUp.json.user.updatedAt);

    const signIn = await call('POST', '/api/auth/sign-in/email', { body: { email, password: 'correct horse' } });
    expect(signIn.status).toBe(200);
    expect(signIn.json).toMatchObject({ redirect: false, user: { id: signUp.json.user.id } });
    const session: string = signIn.json.token;
    expect(session).toMatch(/^als_[A-Za-z0-9_-]{43}$/);
    const cookie = signIn.setCookies.find((value) => value.startsWith('ledger_session='))!;
    expect(cookie).toContain(`ledger_session=${session}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    // The session's remaining lifetime (7 days from sign-in), so a second less when the
    // cookie is written in a later second than the session was created.
    expect(Number(/Max-Age=(\d+)/.exec(cookie)?.[1])).toBeGreaterThanOrEqual(604_800 - 30);
    expect(Number(/Max-Age=(\d+)/.exec(cookie)?.[1])).toBeLessThanOrEqual(604_800);

    // An API token needs a current organization (docs/API.md §4.1).
    expect((await call('POST', '/v1/auth/token', { token: session })).status).toBe(403);
    expect((await call('GET', '/v1/onboarding/status', { token: session })).json).toEqual({ onboarding_completed: 0, org_id: null });

    const onboard = await call('POST', '/v1/onboarding/organization', { token: session, body: { org_name: 'Walkers Inc' } });
    expect(onboard.status).toBe(201);
    const orgId: string = onboard.json.org_id;
    expect((await call('GET', '/v1/onboarding/status', { token: session })).json).toEqual({ onboarding_completed: 1, org_id: orgId });

    const issued = await call('POST', '/v1/auth/token', { token: session, body: { ttl_seconds: 3600 } });
    expect(issued.status).toBe(200);
    const first: string = issued.json.token;
    expect(first).toMatch(/^alt_/);
    expect(issued.json.expires_at).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 3590);
    expect((await call('GET', '/v1/members', { token: first })).status).toBe(200);

    const rotated = await call('POST', '/v1/auth/rotate', { token: first });
    expect(rotated.status).toBe(200);
    const second: string = rotated.json.token;
    expect(second).not.toBe(first);
    expect(rotated.json.token_id).not.toBe(issued.json.token_id);
    // Same lifetime as the token it replaces.
    expect(rotated.json.expires_at).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 3590);
    const graceUntil: number = rotated.json.previous_token_grace_until;
    expect(graceUntil).toBeGreaterThan(Math.floor(Date.now() / 1000));
    expect(graceUntil).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + GRACE_SECONDS);

    // In grace: both work.
    expect((await call('GET', '/v1/members', { token: first })).status).toBe(200);
    expect((await call('GET', '/v1/members', { token: second })).status).toBe(200);
    // A rotated token cannot be rotated again, even in grace.
    expect((await call('POST', '/v1/auth/rotate', { token: first })).status).toBe(409);

    await sleep(graceUntil * 1000 - Date.now() + 50);
    const afterGrace = await call('GET', '/v1/members', { token: first });
    expect(afterGrace.status).toBe(401);
    expect(afterGrace.json.error.code).toBe('UNAUTHORIZED');
    expect((await call('GET', '/v1/members', { token: second })).status).toBe(200);
  });
});

describe('sign-up and sign-in rules (docs/API.md §4.1)', () => {
  it('rejects an existing email with VALIDATION_ERROR 409, whatever its case', async () => {
    const email = uniqueEmail('dup');
    expect((await call('POST', '/api/auth/sign-up/email', { body: { name: 'A', email, password: 'password1' } })).status).toBe(200);
    const again = await call('POST', '/api/auth/sign-up/email', { body: { name: 'B', email: email.toUpperCase(), password: 'password2' } });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('VALIDATION_ERROR');
  });

  it('requires a password of at least 8 characters and a name', async () => {
    const short = await call('POST', '/api/auth/sign-up/email', { body: { name: 'A', email: uniqueEmail(), password: '1234567' } });
    expect(short.status).toBe(400);
    expect(short.json.error.message).toContain('body.password');
    const noName = await call('POST', '/api/auth/sign-up/email', { body: { email: uniqueEmail(), password: '12345678' } });
    expect(noName.status).toBe(400);
  });

  it('answers a wrong password and an unknown email alike', async () => {
    const email = uniqueEmail('alike');
    await call('POST', '/api/auth/sign-up/email', { body: { name: 'A', email, password: 'password1' } });
    const wrong = await call('POST', '/api/auth/sign-in/email', { body: { email, password: 'password2' } });
    const unknown = await call('POST', '/api/auth/sign-in/email', { body: { email: uniqueEmail('nobody'), password: 'password2' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.json.error.code).toBe('UNAUTHORIZED');
    expect(wrong.json.error.message).toBe(unknown.json.error.message);
    expect(wrong.setCookies).toEqual([]);
  });

  it('throttles repeated failures for one email with 429 and Retry-After, even with the right password', async () => {
    const email = uniqueEmail('throttle');
    await call('POST', '/api/auth/sign-up/email', { body: { name: 'A', email, password: 'password1' } });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await call('POST', '/api/auth/sign-in/email', { body: { email, password: `wrong-${attempt}` } })).status).toBe(401);
    }
    const throttled = await call('POST', '/api/auth/sign-in/email', { body: { email, password: 'password1' } });
    expect(throttled.status).toBe(429);
    expect(throttled.json.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Another email is not affected.
    const other = uniqueEmail('other');
    await call('POST', '/api/auth/sign-up/email', { body: { name: 'B', email: other, password: 'password1' } });
    expect((await call('POST', '/api/auth/sign-in/email', { body: { email: other, password: 'password1' } })).status).toBe(200);
  });

  it('evaluates at most 5 of 32 concurrent guesses, the right password among them or not', async () => {
    const email = uniqueEmail('race');
    await call('POST', '/api/auth/sign-up/email', { body: { name: 'R', email, password: 'password1' } });
    const guesses = Array.from({ length: 32 }, (_, i) => (i === 31 ? 'password1' : `wrong-${i}`));
    const statuses = (await Promise.all(guesses.map((password) => call('POST', '/api/auth/sign-in/email', { body: { email, password } })))).map(
      (res) => res.status,
    );
    // Wrong passwords evaluated: at most 5 (a success gives its slot back, so at most one more guess runs).
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(1);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(26);
    expect(statuses.every((status) => [200, 401, 429].includes(status))).toBe(true);
  });
});

describe('sessions (docs/API.md §4.1, §5)', () => {
  async function newSession(): Promise<{ token: string; userId: string; email: string }> {
    const email = uniqueEmail('session');
    const up = await call('POST', '/api/auth/sign-up/email', { body: { name: 'Sess', email, password: 'password1' } });
    const inn = await call('POST', '/api/auth/sign-in/email', { body: { email, password: 'password1' } });
    return { token: inn.json.token, userId: up.json.user.id, email };
  }

  it('get-session answers null with HTTP 200 without a session, and the session with one (bearer or cookie)', async () => {
    const none = await call('GET', '/api/auth/get-session');
    expect(none.status).toBe(200);
    expect(none.text).toBe('null');
    const { token, userId, email } = await newSession();
    for (const options of [{ token }, { cookies: [`ledger_session=${token}`] }]) {
      const res = await call('GET', '/api/auth/get-session', options);
      expect(res.status).toBe(200);
      expect(res.json.session.userId).toBe(userId);
      expect(typeof res.json.session.id).toBe('string');
      const expiresIn = Date.parse(res.json.session.expiresAt) - Date.now();
      expect(expiresIn).toBeGreaterThan(7 * 86_400_000 - 60_000);
      expect(expiresIn).toBeLessThanOrEqual(7 * 86_400_000);
      expect(res.json.user).toMatchObject({ id: userId, email, org_id: null, onboarding_completed: 0 });
    }
  });

  it('GET /v1/auth/me gives the profile of docs/API.md §2.7', async () => {
    const { token, userId, email } = await newSession();
    const before = await call('GET', '/v1/auth/me', { token });
    expect(before.json).toEqual({
      user: expect.objectContaining({ user_id: userId, org_id: null, email, display_name: 'Sess', role: 'org_owner', status: 'active', onboarding_completed: false }),
      current_organization: null,
      // Beyond the original contract: the credential the request came with.
      credential: { kind: 'session', token_id: expect.any(String), name: null, expires_at: expect.any(Number) },
    });
    const { org_id: orgId } = (await call('POST', '/v1/onboarding/personal', { token })).json;
    const after = await call('GET', '/v1/auth/me', { token });
    expect(after.json.user).toMatchObject({ org_id: orgId, onboarding_completed: true });
    expect(typeof after.json.user.created_at).toBe('number');
    expect(after.json.current_organization).toEqual({ org_id: orgId, ba_org_id: orgId, role: 'org_owner', org_name: expect.any(String) });
  });

  it('refresh issues a new session and ends the old one at once', async () => {
    const { token } = await newSession();
    const refreshed = await call('POST', '/v1/auth/refresh', { token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.token).toMatch(/^als_/);
    expect(cookiePair(refreshed, 'ledger_session')).toBe(`ledger_session=${refreshed.json.token}`);
    expect((await call('GET', '/v1/auth/me', { token })).status).toBe(401);
    expect((await call('GET', '/v1/auth/me', { token: refreshed.json.token })).status).toBe(200);
  });

  it('sign-out ends the session and clears the cookie', async () => {
    const { token } = await newSession();
    const out = await call('POST', '/api/auth/sign-out', { cookies: [`ledger_session=${token}`] });
    expect(out.status).toBe(200);
    expect(out.setCookies[0]).toMatch(/^ledger_session=; .*Max-Age=0/);
    expect((await call('GET', '/api/auth/get-session', { token })).text).toBe('null');
  });

  it('keeps session-only and API-token-only endpoints to their kind of token', async () => {
    const { token: session } = await newSession();
    await call('POST', '/v1/onboarding/personal', { token: session });
    const api = (await call('POST', '/v1/auth/token', { token: session })).json.token as string;
    expect((await call('POST', '/v1/auth/rotate', { token: session })).status).toBe(403);
    expect((await call('POST', '/v1/auth/token', { token: api })).status).toBe(403);
    expect((await call('POST', '/v1/auth/refresh', { token: api })).status).toBe(403);
    // Both kinds reach role-guarded routes.
    expect((await call('GET', '/v1/members', { token: session })).status).toBe(200);
    expect((await call('GET', '/v1/members', { token: api })).status).toBe(200);
  });
});

describe('API tokens (docs/API.md §4.1, §8)', () => {
  async function onboardedSession(): Promise<string> {
    const email = uniqueEmail('api');
    await call('POST', '/api/auth/sign-up/email', { body: { name: 'Api', email, password: 'password1' } });
    const token = (await call('POST', '/api/auth/sign-in/email', { body: { email, password: 'password1' } })).json.token as string;
    await call('POST', '/v1/onboarding/personal', { token });
    return token;
  }

  it('accepts ttl_seconds 1..31536000, null or none, and refuses anything else', async () => {
    const session = await onboardedSession();
    for (const ttl of [0, 31_536_001, -5, 1.5, '60']) {
      const res = await call('POST', '/v1/auth/token', { token: session, body: { ttl_seconds: ttl } });
      expect(res.status, `ttl ${ttl}`).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
    }
    const max = await call('POST', '/v1/auth/token', { token: session, body: { ttl_seconds: 31_536_000 } });
    expect(max.json.expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThan(31_536_000 - 60);
    expect((await call('POST', '/v1/auth/token', { token: session, body: { ttl_seconds: null } })).json.expires_at).toBeNull();
    expect((await call('POST', '/v1/auth/token', { token: session, body: {} })).json.expires_at).toBeNull();
    expect((await call('POST', '/v1/auth/token', { token: session })).json.expires_at).toBeNull();
  });

  it('ends a token at expires_at', async () => {
    const session = await onboardedSession();
    // Long enough that the first use is inside it on a loaded machine; the sleep then waits out the rest.
    const issued = await call('POST', '/v1/auth/token', { token: session, body: { ttl_seconds: 3 } });
    expect((await call('GET', '/v1/members', { token: issued.json.token })).status).toBe(200);
    await sleep(issued.json.expires_at * 1000 - Date.now() + 50);
    expect((await call('GET', '/v1/members', { token: issued.json.token })).status).toBe(401);
  });
});
