/**
 * Social sign-in end to end on the local stack (docs/API.md §4.1): the development provider page
 * (LEDGER_DEV_OAUTH=1) stands in for Google and GitHub. The test plays the browser: it keeps
 * the cookies the server sets and follows each redirect by hand.
 */
import { describe, expect, it } from 'vitest';
import { verifyEmail } from '../support/identity-flows.js';
import { cookiePair, uniqueEmail, type HttpResult } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack({ env: { LEDGER_DEV_OAUTH: '1', LEDGER_AUTH_CALLBACK_ORIGINS: 'http://app.example.test' } });
const call = stack.call;

const APP = 'http://app.example.test/after-sign-in?tab=1';

/** The hidden and visible inputs of the consent page's form, as a browser would submit them. */
function formFields(page: HttpResult): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of page.text.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) {
    fields[match[1]!] = match[2]!.replaceAll('&amp;', '&').replaceAll('&quot;', '"');
  }
  return fields;
}

async function startSignIn(provider: 'google' | 'github', callbackURL = APP) {
  const started = await call('POST', '/api/auth/sign-in/social', { body: { provider, callbackURL } });
  expect(started.status).toBe(200);
  expect(started.json.redirect).toBe(true);
  return { url: started.json.url as string, stateCookie: cookiePair(started, 'ledger_oauth_state')! };
}

/** Opens the provider page and presses "Continue as <email>"; returns the provider's redirect to our callback. */
async function consent(url: string, email: string, name = 'Social Person'): Promise<string> {
  const page = await call('GET', url);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.text).toContain('Continue as');
  const fields = { ...formFields(page), email, name };
  const action = /<form method="get" action="([^"]+)"/.exec(page.text)![1]!;
  const redirect = await call('GET', `${action}?${new URLSearchParams(fields)}`);
  expect(redirect.status).toBe(302);
  return redirect.headers.get('location')!;
}

describe('GET /api/auth/providers', () => {
  it('lists google and github while the development sign-in stands in for them', async () => {
    expect((await call('GET', '/api/auth/providers')).json).toEqual({ social: ['google', 'github'] });
  });
});

describe('social sign-in through the development provider', () => {
  it.each(['google', 'github'] as const)('%s: creates the user and a session, sets the cookie and redirects to callbackURL', async (provider) => {
    const { url, stateCookie } = await startSignIn(provider);
    expect(new URL(url).pathname).toBe('/api/auth/dev-oauth/authorize');
    expect(stateCookie).toMatch(/^ledger_oauth_state=/);
    const email = uniqueEmail(provider);
    const callback = await consent(url, email);
    expect(new URL(callback).pathname).toBe(`/api/auth/callback/${provider}`);

    const done = await call('GET', callback, { cookies: [stateCookie] });
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe(APP);
    const session = cookiePair(done, 'ledger_session')!;
    expect(session).toMatch(/^ledger_session=als_/);
    // The state cookie is spent.
    expect(done.setCookies.some((cookie) => /^ledger_oauth_state=;.*Max-Age=0/.test(cookie))).toBe(true);

    const current = await call('GET', '/api/auth/get-session', { cookies: [session] });
    expect(current.json.user).toMatchObject({ email, name: 'Social Person', emailVerified: true, org_id: null, role: 'org_owner', onboarding_completed: 0 });
    // The session works like any other: onboarding, then an API token.
    expect((await call('POST', '/v1/onboarding/personal', { cookies: [session] })).status).toBe(201);
  });

  it.each([
    ['unverified', false],
    ['verified', true],
  ])('never signs in as an account with a password (%s), not even through a code issued before it existed', async (_name, verified) => {
    // The attack: name someone's address on the development page and become them.
    const email = uniqueEmail('victim');
    const up = await call('POST', '/api/auth/sign-up/email', { body: { name: 'Victim', email, password: 'password1' } });
    if (verified) await verifyEmail(stack.baseUrl, email);
    const { url } = await startSignIn('google');
    const page = await call('GET', url);
    const refused = await call('GET', `/api/auth/dev-oauth/continue?${new URLSearchParams({ ...formFields(page), email: email.toUpperCase(), name: 'Attacker' })}`);
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('VALIDATION_ERROR');
    expect(refused.json.error.message).toMatch(/password/);

    // A code issued for the address before the account was made is worthless once it exists.
    const later = uniqueEmail('later');
    const second = await startSignIn('github');
    const callback = await consent(second.url, later);
    expect((await call('POST', '/api/auth/sign-up/email', { body: { name: 'Later', email: later, password: 'password1' } })).status).toBe(200);
    const done = await call('GET', callback, { cookies: [second.stateCookie] });
    expect(done.status).toBe(302);
    expect(new URL(done.headers.get('location')!).searchParams.get('error')).toBe('invalid_code');
    expect(cookiePair(done, 'ledger_session')).toBeUndefined();
    expect(up.status).toBe(200);
  });

  it('signs in again as the same account when the address (in any case) comes back', async () => {
    const email = uniqueEmail('returning');
    const first = await startSignIn('github');
    const one = await call('GET', await consent(first.url, email), { cookies: [first.stateCookie] });
    const again = await startSignIn('google');
    const two = await call('GET', await consent(again.url, email.toUpperCase()), { cookies: [again.stateCookie] });
    const user = async (done: HttpResult) => (await call('GET', '/api/auth/get-session', { cookies: [cookiePair(done, 'ledger_session')!] })).json.user;
    expect((await user(two)).id).toBe((await user(one)).id);
  });

  it('completes only in the browser that started it, and only once', async () => {
    const { url, stateCookie } = await startSignIn('google');
    const callback = await consent(url, uniqueEmail('csrf'));
    const withoutCookie = await call('GET', callback);
    expect(withoutCookie.status).toBe(401);
    expect(withoutCookie.json.error.code).toBe('UNAUTHORIZED');
    expect((await call('GET', callback, { cookies: ['ledger_oauth_state=someone-else'] })).status).toBe(401);
    expect((await call('GET', callback, { cookies: [stateCookie] })).status).toBe(302);
    expect((await call('GET', callback, { cookies: [stateCookie] })).status).toBe(401);
  });

  it('sends a declined sign-in back to callbackURL with error=access_denied and no session', async () => {
    const { url, stateCookie } = await startSignIn('google');
    const state = new URL(url).searchParams.get('state')!;
    const declined = await call('GET', `/api/auth/callback/google?state=${encodeURIComponent(state)}&error=access_denied`, {
      cookies: [stateCookie],
    });
    expect(declined.status).toBe(302);
    const location = new URL(declined.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('tab')).toBe('1');
    expect(cookiePair(declined, 'ledger_session')).toBeUndefined();
  });

  it('rejects a forged code', async () => {
    const { url, stateCookie } = await startSignIn('google');
    const state = new URL(url).searchParams.get('state')!;
    const forged = await call('GET', `/api/auth/callback/google?state=${encodeURIComponent(state)}&code=forged`, { cookies: [stateCookie] });
    expect(forged.status).toBe(302);
    expect(new URL(forged.headers.get('location')!).searchParams.get('error')).toBe('invalid_code');
    expect(cookiePair(forged, 'ledger_session')).toBeUndefined();
  });

  it('validates callbackURL: a path here, or an http(s) URL on this origin or a listed one, without credentials', async () => {
    const here = await call('POST', '/api/auth/sign-in/social', { body: { provider: 'google', callbackURL: '/after?x=1' } });
    expect(here.status).toBe(200);
    const unlisted = ['https://evil.example.test/', '//evil.example.test/x', 'https://app.example.test/'];
    for (const callbackURL of [...unlisted, 'javascript:alert(1)', 'ftp://example.test/x', 'http://user:pw@app.example.test/', 'not a url']) {
      const res = await call('POST', '/api/auth/sign-in/social', { body: { provider: 'google', callbackURL } });
      expect(res.status, callbackURL).toBe(400);
      expect(res.json.error.message).toContain('callbackURL');
    }
    expect((await call('POST', '/api/auth/sign-in/social', { body: { provider: 'facebook', callbackURL: APP } })).status).toBe(400);
  });

  it('the development provider only redirects to this server\'s callback', async () => {
    const { url } = await startSignIn('google');
    const page = await call('GET', url);
    const fields = { ...formFields(page), redirect_uri: 'https://evil.example.test/api/auth/callback/google', email: uniqueEmail(), name: 'X' };
    const res = await call('GET', `/api/auth/dev-oauth/continue?${new URLSearchParams(fields)}`);
    expect(res.status).toBe(400);
  });
});
