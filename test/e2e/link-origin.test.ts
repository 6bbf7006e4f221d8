/**
 * Links are built from configuration, never from the request (SECURITY.md, Rules the service enforces): a sign-up
 * or a resend sent with `Host: attacker.example` still mails a link to LEDGER_PUBLIC_URL (here
 * the local stack's own address), so the token never travels to the attacker's server. And
 * with LEDGER_AUTH_CALLBACK_ORIGINS unset, callbackURL may only lead back to this service.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { verificationLink } from '../support/identity-flows.js';
import { uniqueEmail } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
const call = stack.call;


/** A JSON POST with headers fetch() will not let a caller choose (Host, X-Forwarded-*). */
function postWithHeaders(path: string, body: unknown, headers: Record<string, string>): Promise<number> {
  const payload = JSON.stringify(body);
  const { hostname, port } = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const FORGED = { host: 'attacker.example', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'attacker.example' };

describe('verification links', () => {
  it('ignore a forged Host header on sign-up and on resend', async () => {
    const email = uniqueEmail('host');
    expect(await postWithHeaders('/api/auth/sign-up/email', { name: 'Host', email, password: 'password-1234' }, FORGED)).toBe(200);
    expect(new URL(await verificationLink(email)).origin).toBe(stack.baseUrl);

    expect(await postWithHeaders('/api/auth/send-verification-email', { email }, FORGED)).toBe(200);
    const resent = new URL(await verificationLink(email));
    expect(resent.origin).toBe(stack.baseUrl);
    expect(resent.pathname).toBe('/api/auth/verify-email');
  });
});

describe('callbackURL without LEDGER_AUTH_CALLBACK_ORIGINS', () => {
  it('takes a path or an absolute URL on this service, and nothing else', async () => {
    const email = uniqueEmail('callback');
    const up = await call('POST', '/api/auth/sign-up/email', { body: { name: 'C', email, password: 'password-1234', callbackURL: '/welcome?x=1' } });
    expect(up.status).toBe(200);
    const link = new URL(await verificationLink(email));
    expect(link.searchParams.get('callbackURL')).toBe(`${stack.baseUrl}/welcome?x=1`);
    const verified = await call('GET', `${link.pathname}${link.search}`);
    expect(verified.status).toBe(302);
    expect(verified.headers.get('location')).toBe(`${stack.baseUrl}/welcome?x=1`);

    for (const callbackURL of ['https://evil.example.test/phish', '//evil.example.test/phish', 'http://localhost:1/']) {
      const refused = await call('POST', '/api/auth/sign-up/email', { body: { name: 'C', email: uniqueEmail('open'), password: 'password-1234', callbackURL } });
      expect(refused.status, callbackURL).toBe(400);
      expect(refused.json.error.code).toBe('VALIDATION_ERROR');
      const resend = await call('POST', '/api/auth/send-verification-email', { body: { email, callbackURL } });
      expect(resend.status, callbackURL).toBe(400);
    }
    expect((await call('POST', '/api/auth/sign-up/email', { body: { name: 'C', email: uniqueEmail('own'), password: 'password-1234', callbackURL: `${stack.baseUrl}/x` } })).status).toBe(200);
  });
});
