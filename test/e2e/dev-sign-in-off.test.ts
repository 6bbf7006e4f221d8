/**
 * The development sign-in is opt-in (SECURITY.md, Rules the service enforces): without LEDGER_DEV_OAUTH=1 the local
 * stack offers no social sign-in at all, and the development provider's pages do not exist,
 * so nobody can sign in as someone else by naming their address on it.
 */
import { describe, expect, it } from 'vitest';
import { uniqueEmail } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
const call = stack.call;


describe('without LEDGER_DEV_OAUTH=1', () => {
  it('lists no social provider, so a sign-in page shows no social buttons', async () => {
    expect((await call('GET', '/api/auth/providers')).json).toEqual({ social: [] });
  });

  it('refuses social sign-in and hides the development provider', async () => {
    const started = await call('POST', '/api/auth/sign-in/social', { body: { provider: 'google', callbackURL: `${stack.baseUrl}/app` } });
    expect(started.status).toBe(400);
    expect(started.json.error.code).toBe('VALIDATION_ERROR');
    expect(started.json.error.message).toMatch(/not configured/);

    // The attack's second step, with whatever parameters: the route answers as if it did not exist.
    const query = new URLSearchParams({
      provider: 'google',
      redirect_uri: `${stack.baseUrl}/api/auth/callback/google`,
      state: 'x'.repeat(43),
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
      email: uniqueEmail('victim'),
      name: 'Attacker',
    });
    for (const path of ['/api/auth/dev-oauth/continue', '/api/auth/dev-oauth/authorize']) {
      const res = await call('GET', `${path}?${query}`);
      expect(res.status, path).toBe(404);
      expect(res.json.error.code, path).toBe('NOT_FOUND');
    }
  });
});
