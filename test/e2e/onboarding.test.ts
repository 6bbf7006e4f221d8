/** Onboarding (docs/API.md §4.2, §8): personal and organization flows, limits, once only, org.create in the admin log. */
import { describe, expect, it } from 'vitest';
import { uniqueEmail } from '../support/http-client.js';
import { signedInUser } from '../support/identity-flows.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
const call = stack.call;


describe('POST /v1/onboarding/personal', () => {
  it('creates "Personal Workspace" owned by the caller, with org.create in the admin log', async () => {
    const user = await signedInUser(stack.baseUrl);
    const res = await call('POST', '/v1/onboarding/personal', { token: user.session });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json)).toEqual(['org_id']);
    const orgId = res.json.org_id;
    const org = await call('GET', '/v1/organization', { token: user.session });
    expect(org.json.organization).toMatchObject({ org_id: orgId, org_name: 'Personal Workspace', description: null, created_by: user.userId });
    const members = await call('GET', '/v1/members', { token: user.session });
    expect(members.json.members).toEqual([
      expect.objectContaining({ user_id: user.userId, role: 'org_owner', email: user.email, display_name: user.name }),
    ]);
    const events = await call('GET', '/v1/admin/events', { token: user.session });
    expect(events.json.events).toEqual([
      expect.objectContaining({ org_id: orgId, actor: user.userId, action: 'org.create', target_type: 'organization', target_id: orgId }),
    ]);
    expect(JSON.parse(events.json.events[0].details)).toMatchObject({ kind: 'personal' });
  });

  it('happens once: a second attempt of either flow is VALIDATION_ERROR 409', async () => {
    const user = await signedInUser(stack.baseUrl);
    expect((await call('POST', '/v1/onboarding/personal', { token: user.session })).status).toBe(201);
    for (const [path, body] of [
      ['/v1/onboarding/personal', undefined],
      ['/v1/onboarding/organization', { org_name: 'Second' }],
    ] as const) {
      const again = await call('POST', path, { token: user.session, body });
      expect(again.status).toBe(409);
      expect(again.json.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('lets concurrent attempts create exactly one organization', async () => {
    const user = await signedInUser(stack.baseUrl);
    const results = await Promise.all(Array.from({ length: 4 }, () => call('POST', '/v1/onboarding/personal', { token: user.session })));
    expect(results.map((res) => res.status).sort()).toEqual([201, 409, 409, 409]);
  });
});

describe('POST /v1/onboarding/organization', () => {
  it('creates the organization with its description and invitations (member.invite each)', async () => {
    const user = await signedInUser(stack.baseUrl);
    const invitees = [uniqueEmail('inv'), uniqueEmail('inv')];
    const res = await call('POST', '/v1/onboarding/organization', {
      token: user.session,
      body: {
        org_name: 'Acme Robotics',
        description: 'We build agents',
        invitations: [
          { email: invitees[0], role: 'security_admin' },
          { email: invitees[1], role: 'readonly_investigator' },
        ],
      },
    });
    expect(res.status).toBe(201);
    const org = await call('GET', '/v1/organization', { token: user.session });
    expect(org.json.organization).toMatchObject({ org_name: 'Acme Robotics', description: 'We build agents' });
    const pending = await call('GET', '/v1/members/invitations', { token: user.session });
    expect(pending.json.invitations.map((invitation: { email: string; role: string }) => [invitation.email, invitation.role]).sort()).toEqual(
      [
        [invitees[0], 'security_admin'],
        [invitees[1], 'readonly_investigator'],
      ].sort(),
    );
    for (const invitation of pending.json.invitations) {
      expect(invitation).toMatchObject({ status: 'pending', inviter_id: user.userId });
      expect(Date.parse(invitation.expires_at) - Date.parse(invitation.created_at)).toBe(7 * 86_400_000);
    }
    const actions = (await call('GET', '/v1/admin/events', { token: user.session })).json.events.map((event: { action: string }) => event.action);
    expect(actions.sort()).toEqual(['member.invite', 'member.invite', 'org.create']);
  });

  it('enforces the limits of docs/API.md §8 and a valid role', async () => {
    const user = await signedInUser(stack.baseUrl);
    const bad = [
      {},
      { org_name: '' },
      { org_name: 'x'.repeat(129) },
      { org_name: 'ok', description: 'x'.repeat(513) },
      { org_name: 'ok', invitations: [{ email: `${'x'.repeat(245)}@example.test`, role: 'security_admin' }] },
      { org_name: 'ok', invitations: [{ email: 'not-an-email', role: 'security_admin' }] },
      { org_name: 'ok', invitations: [{ email: uniqueEmail(), role: 'superuser' }] },
      { org_name: 'ok', invitations: [{ email: user.email, role: 'security_admin' }] },
    ];
    for (const body of bad) {
      const res = await call('POST', '/v1/onboarding/organization', { token: user.session, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
    }
    // Nothing was created by the refused attempts; the limits themselves are accepted.
    expect((await call('GET', '/v1/onboarding/status', { token: user.session })).json.onboarding_completed).toBe(0);
    const ok = await call('POST', '/v1/onboarding/organization', {
      token: user.session,
      body: { org_name: 'x'.repeat(128), description: 'y'.repeat(512), invitations: [{ email: `${'x'.repeat(243)}@example.test`, role: 'org_owner' }] },
    });
    expect(ok.status).toBe(201);
  });

  it('needs authentication', async () => {
    expect((await call('POST', '/v1/onboarding/organization', { body: { org_name: 'x' } })).status).toBe(401);
    expect((await call('GET', '/v1/onboarding/status')).status).toBe(401);
  });
});

// In the acceptance set, so it runs against the rehearsal too: cognito-local answers a wrong
// password with InvalidPasswordException, which once made this a 500 there.
describe('signing in with a wrong password, before any session exists', () => {
  it('is UNAUTHORIZED 401, as an unknown email is, and sets no cookie', async () => {
    const user = await signedInUser(stack.baseUrl, 'Returning');
    const wrong = await call('POST', '/api/auth/sign-in/email', { body: { email: user.email, password: 'not-the-password-1' } });
    const unknown = await call('POST', '/api/auth/sign-in/email', { body: { email: uniqueEmail('nobody'), password: 'not-the-password-1' } });
    expect([wrong.status, wrong.json.error.code]).toEqual([401, 'UNAUTHORIZED']);
    expect([unknown.status, unknown.json.error.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(wrong.json.error.message).toBe(unknown.json.error.message);
    expect(wrong.setCookies).toEqual([]);
  });
});
