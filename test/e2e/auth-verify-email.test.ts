/**
 * Email verification closes the invitation hole (docs/API.md §4.1 "a verification email is
 * sent"; §2.9 invitations): signing up with someone else's address proves nothing, so that
 * account neither sees nor accepts the invitations addressed to it until the address is
 * verified through the mailed link. Also: the link is single-use and expires after 24 hours,
 * callbackURL follows the social sign-in policy, and re-sending answers alike for every
 * email (no account enumeration) within a per-email limit.
 */
import { describe, expect, it } from 'vitest';
import { issueVerificationToken, sentVerificationLinks, VERIFICATION_TOKEN_TTL_MS } from '../../lambdas/adapters/local/verification-tokens.js';
import { MAX_VERIFICATION_MAILS } from '../../lambdas/domain/rate-limit/verification-mail-throttle.js';
import { uniqueEmail } from '../support/http-client.js';
import { orgOwner, signedInUser, verificationLink } from '../support/identity-flows.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack({ env: { LEDGER_AUTH_CALLBACK_ORIGINS: 'https://app.example.test' } });
const call = stack.call;


/** The path and query of a verification link, to send to the test stack. */
const pathOf = (link: string) => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};

describe('an invitation needs a verified email', () => {
  it('the account of whoever signed up first with the address cannot list or accept it until the address is verified', async () => {
    const owner = await orgOwner(stack.baseUrl, 'Invites');
    const victimEmail = uniqueEmail('victim');
    const invited = await call('POST', '/v1/members/invitations', { token: owner.session, body: { email: victimEmail, role: 'security_admin' } });
    expect(invited.status).toBe(201);
    const invitationId: string = invited.json.invitation.invitation_id;

    // Someone signs up with the victim's address before the victim does, and signs in.
    const squatter = await signedInUser(stack.baseUrl, 'Squatter', { email: victimEmail, verified: false });
    expect((await call('GET', '/api/auth/get-session', { token: squatter.session })).json.user.emailVerified).toBe(false);
    const listed = await call('GET', '/v1/invitations', { token: squatter.session });
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual({ invitations: [] });
    const refused = await call('POST', `/v1/invitations/${invitationId}/accept`, { token: squatter.session });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('FORBIDDEN');
    expect(refused.json.error.message).toMatch(/verify your email/);
    // Still pending, still not a member.
    expect((await call('GET', '/v1/members/invitations', { token: owner.session })).json.invitations.map((i: { invitation_id: string }) => i.invitation_id)).toEqual([
      invitationId,
    ]);
    expect((await call('GET', '/v1/members', { token: squatter.session })).status).toBe(403);

    // Only the mailbox's owner gets the link; following it verifies the address.
    const verified = await call('GET', pathOf(await verificationLink(victimEmail)));
    expect(verified.status).toBe(200);
    expect(verified.json).toEqual({ status: true });
    expect((await call('GET', '/api/auth/get-session', { token: squatter.session })).json.user.emailVerified).toBe(true);
    expect((await call('GET', '/v1/invitations', { token: squatter.session })).json.invitations).toEqual([
      expect.objectContaining({ invitation_id: invitationId, org_id: owner.orgId, org_name: 'Invites' }),
    ]);
    const accepted = await call('POST', `/v1/invitations/${invitationId}/accept`, { token: squatter.session });
    expect(accepted.status).toBe(200);
    expect(accepted.json).toEqual({ org_id: owner.orgId, role: 'security_admin' });
  });

  it('sign-in after verification reports the address verified', async () => {
    const user = await signedInUser(stack.baseUrl, 'Verified');
    const signIn = await call('POST', '/api/auth/sign-in/email', { body: { email: user.email, password: 'password-1234' } });
    expect(signIn.status).toBe(200);
    expect(signIn.json.user.emailVerified).toBe(true);
  });
});

describe('GET /api/auth/verify-email', () => {
  it('takes a token once: a used token is VALIDATION_ERROR 400', async () => {
    const user = await signedInUser(stack.baseUrl, 'Once', { verified: false });
    const path = pathOf(await verificationLink(user.email));
    expect(path).toMatch(/^\/api\/auth\/verify-email\?token=[A-Za-z0-9_-]{43}$/);
    expect((await call('GET', path)).status).toBe(200);
    const again = await call('GET', path);
    expect(again.status).toBe(400);
    expect(again.json.error.code).toBe('VALIDATION_ERROR');
    expect(again.json.error.message).toMatch(/token/);
  });

  it('refuses an expired token (24 hours) and an unknown one', async () => {
    const user = await signedInUser(stack.baseUrl, 'Late', { verified: false });
    const stale = await issueVerificationToken(user.email, Date.now() - VERIFICATION_TOKEN_TTL_MS - 1000);
    const expired = await call('GET', `/api/auth/verify-email?token=${stale}`);
    expect(expired.status).toBe(400);
    expect(expired.json.error.code).toBe('VALIDATION_ERROR');
    expect((await call('GET', '/api/auth/verify-email?token=not-a-token')).status).toBe(400);
    expect((await call('GET', '/api/auth/verify-email')).status).toBe(400);
    expect((await call('GET', '/api/auth/get-session', { token: user.session })).json.user.emailVerified).toBe(false);
  });

  it('redirects (302) to a callbackURL the policy allows, and refuses another without spending the token', async () => {
    const email = uniqueEmail('callback');
    const up = await call('POST', '/api/auth/sign-up/email', {
      body: { name: 'Callback', email, password: 'password-1234', callbackURL: 'https://app.example.test/welcome' },
    });
    expect(up.status).toBe(200);
    const link = new URL(await verificationLink(email));
    expect(link.origin).toBe(stack.baseUrl);
    expect(link.searchParams.get('callbackURL')).toBe('https://app.example.test/welcome');
    const token = link.searchParams.get('token')!;

    const elsewhere = await call('GET', `/api/auth/verify-email?token=${token}&callbackURL=${encodeURIComponent('https://evil.example.test/')}`);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.json.error.message).toMatch(/query\.callbackURL/);

    const redirected = await call('GET', pathOf(link.href));
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe('https://app.example.test/welcome');

    // A sign-up whose callbackURL the policy refuses is refused before any account exists.
    const refused = await call('POST', '/api/auth/sign-up/email', {
      body: { name: 'X', email: uniqueEmail('refused'), password: 'password-1234', callbackURL: 'javascript:alert(1)' },
    });
    expect(refused.status).toBe(400);
  });
});

/** GET of `path` as a browser asks for a page (Accept names text/html), redirects not followed. */
const asBrowser = (path: string) =>
  fetch(`${stack.baseUrl}${path}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, redirect: 'manual' });

describe('GET /api/auth/verify-email opened by a browser lands in the console', () => {
  it('redirects to /sign-in?verified=1 without a callbackURL, and to the callbackURL with one', async () => {
    const user = await signedInUser(stack.baseUrl, 'Browser', { verified: false });
    const landed = await asBrowser(pathOf(await verificationLink(user.email)));
    expect(landed.status).toBe(302);
    expect(landed.headers.get('location')).toBe('/sign-in?verified=1');
    expect((await call('GET', '/api/auth/get-session', { token: user.session })).json.user.emailVerified).toBe(true);

    const email = uniqueEmail('browser-callback');
    expect((await call('POST', '/api/auth/sign-up/email', { body: { name: 'C', email, password: 'password-1234', callbackURL: '/sign-in?verified=1&email=x' } })).status).toBe(200);
    const withCallback = await asBrowser(pathOf(await verificationLink(email)));
    expect(withCallback.status).toBe(302);
    // The callback policy answers the path as an absolute URL on this service's own origin.
    const target = new URL(withCallback.headers.get('location')!, stack.baseUrl);
    expect([target.origin, `${target.pathname}${target.search}`]).toEqual([new URL(stack.baseUrl).origin, '/sign-in?verified=1&email=x']);
  });

  it('says why a link failed: used, expired or unknown, while API clients keep their VALIDATION_ERROR', async () => {
    const user = await signedInUser(stack.baseUrl, 'Twice', { verified: false });
    const path = pathOf(await verificationLink(user.email));
    expect((await asBrowser(path)).status).toBe(302);
    const used = await asBrowser(path);
    expect([used.status, used.headers.get('location')]).toEqual([302, '/sign-in?verify_error=used']);
    const again = await call('GET', path);
    expect([again.status, again.json.error.code, again.json.error.message]).toEqual([400, 'VALIDATION_ERROR', 'query.token: invalid, expired or already used verification token']);

    const late = await signedInUser(stack.baseUrl, 'Later', { verified: false });
    const stale = await issueVerificationToken(late.email, Date.now() - VERIFICATION_TOKEN_TTL_MS - 1000);
    const expired = await asBrowser(`/api/auth/verify-email?token=${stale}`);
    expect([expired.status, expired.headers.get('location')]).toEqual([302, '/sign-in?verify_error=expired']);
    expect((await call('GET', '/api/auth/get-session', { token: late.session })).json.user.emailVerified).toBe(false);

    const unknown = await asBrowser('/api/auth/verify-email?token=not-a-token');
    expect([unknown.status, unknown.headers.get('location')]).toEqual([302, '/sign-in?verify_error=unknown']);
    // A callbackURL the policy refuses is refused before anything else, for browsers too (no open redirect).
    const elsewhere = await asBrowser(`/api/auth/verify-email?token=x&callbackURL=${encodeURIComponent('https://evil.example.test/')}`);
    expect(elsewhere.status).toBe(400);
  });
});

describe('POST /api/auth/send-verification-email', () => {
  it('answers {status: true} for unknown, unverified and verified emails alike, and mails only the unverified', async () => {
    const unknown = uniqueEmail('nobody');
    const pending = await signedInUser(stack.baseUrl, 'Pending', { verified: false });
    const done = await signedInUser(stack.baseUrl, 'Done');
    const firstLink = await verificationLink(pending.email);
    const doneLink = await verificationLink(done.email);

    const answers = [];
    for (const email of [unknown, pending.email, done.email]) {
      const res = await call('POST', '/api/auth/send-verification-email', { body: { email } });
      answers.push([res.status, res.text]);
    }
    expect(answers).toEqual(Array(3).fill([200, '{"status":true}']));
    expect(sentVerificationLinks.has(unknown)).toBe(false);
    expect(await verificationLink(done.email)).toBe(doneLink);
    const secondLink = await verificationLink(pending.email);
    expect(secondLink).not.toBe(firstLink);

    // The new link verifies.
    expect((await call('GET', pathOf(secondLink))).status).toBe(200);
    expect((await call('GET', '/api/auth/get-session', { token: pending.session })).json.user.emailVerified).toBe(true);
  });

  it('limits mails per email, for unknown emails the same as for accounts', async () => {
    const unknown = uniqueEmail('flood');
    const pending = await signedInUser(stack.baseUrl, 'Flooded', { verified: false });
    for (const email of [unknown, pending.email]) {
      for (let i = 0; i < MAX_VERIFICATION_MAILS; i += 1) {
        expect((await call('POST', '/api/auth/send-verification-email', { body: { email } })).status).toBe(200);
      }
      const limited = await call('POST', '/api/auth/send-verification-email', { body: { email } });
      expect(limited.status).toBe(429);
      expect(limited.json.error.code).toBe('RATE_LIMITED');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('validates its body', async () => {
    expect((await call('POST', '/api/auth/send-verification-email', { body: { email: 'not-an-email' } })).status).toBe(400);
    expect((await call('POST', '/api/auth/send-verification-email', { body: { email: uniqueEmail(), callbackURL: 'ftp://x' } })).status).toBe(400);
  });
});
