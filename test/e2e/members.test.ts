/**
 * Organizations, invitations and members (docs/API.md §4.4, §6.3):
 * invite → accept → role change → removal, each in the admin log; the last org_owner rule;
 * invitation listing and cancellation; role changes applying on the next request. (Expiry:
 * invitation-expiry.test.ts, which needs a week-old invitation in the table.)
 */
import { describe, expect, it } from 'vitest';
import { uniqueEmail } from '../support/http-client.js';
import { orgOwner, signedInUser, type SignedIn } from '../support/identity-flows.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
const call = stack.call;


/** Invites `invitee` into the owner's org with `role` and has them accept; returns the invitation id. */
async function join(owner: { session: string }, invitee: SignedIn, role: string): Promise<string> {
  const invited = await call('POST', '/v1/members/invitations', { token: owner.session, body: { email: invitee.email, role } });
  expect(invited.status).toBe(201);
  const accepted = await call('POST', `/v1/invitations/${invited.json.invitation.invitation_id}/accept`, { token: invitee.session });
  expect(accepted.status).toBe(200);
  return invited.json.invitation.invitation_id;
}

describe('invite → accept → role change → removal', () => {
  it('works, and each step is in the admin log, newest first', async () => {
    const owner = await orgOwner(stack.baseUrl, 'Lifecycle');
    const invitee = await signedInUser(stack.baseUrl, 'Invitee');

    const invited = await call('POST', '/v1/members/invitations', { token: owner.session, body: { email: invitee.email.toUpperCase(), role: 'integration_engineer' } });
    expect(invited.status).toBe(201);
    const invitation = invited.json.invitation;
    expect(invitation).toMatchObject({ email: invitee.email, role: 'integration_engineer', status: 'pending', inviter_id: owner.userId });
    expect(invitation.invitation_id).toMatch(/^[0-9a-f-]{36}$/);

    // The invitee sees it, with the organization's name.
    const received = await call('GET', '/v1/invitations', { token: invitee.session });
    expect(received.json.invitations).toEqual([expect.objectContaining({ invitation_id: invitation.invitation_id, org_id: owner.orgId, org_name: 'Lifecycle' })]);
    // Before joining, the invitee has no access to the organization.
    expect((await call('GET', '/v1/members', { token: invitee.session })).status).toBe(403);

    const accepted = await call('POST', `/v1/invitations/${invitation.invitation_id}/accept`, { token: invitee.session });
    expect(accepted.status).toBe(200);
    expect(accepted.json).toEqual({ org_id: owner.orgId, role: 'integration_engineer' });
    expect((await call('GET', '/v1/onboarding/status', { token: invitee.session })).json).toEqual({ onboarding_completed: 1, org_id: owner.orgId });
    expect((await call('GET', '/v1/invitations', { token: invitee.session })).json.invitations).toEqual([]);
    expect((await call('GET', '/v1/members/invitations', { token: owner.session })).json.invitations).toEqual([]);
    const members = (await call('GET', '/v1/members', { token: invitee.session })).json.members;
    expect(members).toEqual(
      expect.arrayContaining([expect.objectContaining({ user_id: invitee.userId, role: 'integration_engineer', email: invitee.email, display_name: 'Invitee' })]),
    );
    // integration_engineer may not read the admin log (docs/API.md §4.6).
    expect((await call('GET', '/v1/admin/events', { token: invitee.session })).status).toBe(403);

    const changed = await call('PATCH', `/v1/members/${invitee.userId}`, { token: owner.session, body: { role: 'compliance_auditor' } });
    expect(changed.status).toBe(200);
    expect(changed.json.member).toMatchObject({ user_id: invitee.userId, role: 'compliance_auditor' });
    // The very next request acts with the new role.
    expect((await call('GET', '/v1/admin/events', { token: invitee.session })).status).toBe(200);
    expect((await call('GET', '/v1/auth/me', { token: invitee.session })).json.user.role).toBe('compliance_auditor');

    const removed = await call('DELETE', `/v1/members/${invitee.userId}`, { token: owner.session });
    expect(removed.status).toBe(200);
    expect(removed.json).toEqual({ deleted: true });
    expect((await call('GET', '/v1/admin/events', { token: invitee.session })).status).toBe(403);
    expect((await call('GET', '/v1/onboarding/status', { token: invitee.session })).json).toEqual({ onboarding_completed: 0, org_id: null });
    expect((await call('GET', '/v1/members', { token: owner.session })).json.members.map((member: { user_id: string }) => member.user_id)).toEqual([
      owner.userId,
    ]);

    const events = (await call('GET', '/v1/admin/events', { token: owner.session })).json.events;
    expect(events.map((event: { action: string }) => event.action)).toEqual([
      'member.remove',
      'member.role_change',
      'invitation.accept',
      'member.invite',
      'org.create',
    ]);
    const [remove, roleChange, accept, invite] = events;
    expect(remove).toMatchObject({ actor: owner.userId, target_type: 'member', target_id: invitee.userId });
    expect(roleChange).toMatchObject({ actor: owner.userId, target_id: invitee.userId });
    expect(JSON.parse(roleChange.details)).toEqual({ from: 'integration_engineer', to: 'compliance_auditor' });
    expect(accept).toMatchObject({ actor: invitee.userId, target_id: invitee.userId });
    expect(invite).toMatchObject({ actor: owner.userId, target_type: 'invitation', target_id: invitation.invitation_id });
    for (let i = 1; i < events.length; i += 1) expect(events[i - 1].created_at).toBeGreaterThanOrEqual(events[i].created_at);
  });

  it("ends a removed member's API tokens, and lets them onboard again", async () => {
    const owner = await orgOwner(stack.baseUrl);
    const member = await signedInUser(stack.baseUrl, 'Leaver');
    await join(owner, member, 'security_admin');
    const api = (await call('POST', '/v1/auth/token', { token: member.session })).json.token as string;
    expect((await call('GET', '/v1/members', { token: api })).status).toBe(200);
    await call('DELETE', `/v1/members/${member.userId}`, { token: owner.session });
    expect((await call('GET', '/v1/members', { token: api })).status).toBe(401);
    expect((await call('GET', '/v1/auth/me', { token: api })).status).toBe(401);
    // The session stays, for a fresh start.
    expect((await call('POST', '/v1/onboarding/personal', { token: member.session })).status).toBe(201);
    // An API token issued in the old org does not come back to life in the new one.
    expect((await call('GET', '/v1/members', { token: api })).status).toBe(401);
  });
});

describe("a removed member's API tokens", () => {
  it('stay dead when the person is re-invited into the same organization and accepts', async () => {
    const owner = await orgOwner(stack.baseUrl);
    const member = await signedInUser(stack.baseUrl, 'Returner');
    await join(owner, member, 'security_admin');
    const issued = await call('POST', '/v1/auth/token', { token: member.session });
    const old = issued.json.token as string;
    const rotated = (await call('POST', '/v1/auth/rotate', { token: old })).json.token as string;
    expect((await call('GET', '/v1/members', { token: rotated })).status).toBe(200);

    expect((await call('DELETE', `/v1/members/${member.userId}`, { token: owner.session })).status).toBe(200);
    await join(owner, member, 'readonly_investigator');
    for (const token of [old, rotated]) {
      expect((await call('GET', '/v1/members', { token })).status).toBe(401);
      expect((await call('GET', '/v1/auth/me', { token })).status).toBe(401);
    }
    // A token of the new membership works, with the new role.
    const fresh = (await call('POST', '/v1/auth/token', { token: member.session })).json.token as string;
    expect((await call('GET', '/v1/auth/me', { token: fresh })).json.user.role).toBe('readonly_investigator');
  });
});

describe('the last org_owner', () => {
  it('can be neither demoted nor removed; with two owners one may go', async () => {
    const owner = await orgOwner(stack.baseUrl);
    // Nobody changes their own role, the last owner included.
    const demote = await call('PATCH', `/v1/members/${owner.userId}`, { token: owner.session, body: { role: 'security_admin' } });
    expect(demote.status).toBe(403);
    const leave = await call('DELETE', `/v1/members/${owner.userId}`, { token: owner.session });
    expect(leave.status).toBe(409);
    expect(leave.json.error.code).toBe('VALIDATION_ERROR');

    const second = await signedInUser(stack.baseUrl, 'Second');
    await join(owner, second, 'org_owner');
    expect((await call('PATCH', `/v1/members/${owner.userId}`, { token: second.session, body: { role: 'security_admin' } })).status).toBe(200);
    // Now `second` is the last owner: they may not leave, and the security_admin may not remove them.
    expect((await call('DELETE', `/v1/members/${second.userId}`, { token: second.session })).status).toBe(409);
    expect((await call('DELETE', `/v1/members/${second.userId}`, { token: owner.session })).status).toBe(403);
  });

  it('holds under concurrency: of two owners demoting each other at once, at most one succeeds', async () => {
    const owner = await orgOwner(stack.baseUrl);
    const second = await signedInUser(stack.baseUrl, 'Second');
    await join(owner, second, 'org_owner');
    const results = await Promise.all([
      call('PATCH', `/v1/members/${second.userId}`, { token: owner.session, body: { role: 'readonly_investigator' } }),
      call('PATCH', `/v1/members/${owner.userId}`, { token: second.session, body: { role: 'readonly_investigator' } }),
    ]);
    // Each wins or loses cleanly: 409 (the last owner, or a concurrent change), or 403 when the
    // other demotion landed first and took the caller's admin role; never a 5xx.
    for (const res of results) expect([200, 403, 409]).toContain(res.status);
    expect(results.filter((res) => res.status === 200).length).toBeLessThanOrEqual(1);
    const roles = (await call('GET', '/v1/members', { token: owner.session })).json.members.map((member: { role: string }) => member.role);
    expect(roles.filter((role: string) => role === 'org_owner').length).toBeGreaterThanOrEqual(1);
  });
});

describe('who may make or unmake an org_owner (SECURITY.md, Rules the service enforces)', () => {
  it('a security_admin can neither promote themselves nor demote, remove or out-invite the owner', async () => {
    const owner = await orgOwner(stack.baseUrl);
    const admin = await signedInUser(stack.baseUrl, 'Admin');
    await join(owner, admin, 'security_admin');
    const engineer = await signedInUser(stack.baseUrl, 'Engineer');
    await join(owner, engineer, 'integration_engineer');
    const as = (who: SignedIn) => (method: string, path: string, body?: unknown) => call(method, path, { token: who.session, body });

    // The takeover: promote oneself, then demote and remove the creator.
    const attempts = [
      await as(admin)('PATCH', `/v1/members/${admin.userId}`, { role: 'org_owner' }),
      await as(admin)('PATCH', `/v1/members/${owner.userId}`, { role: 'readonly_investigator' }),
      await as(admin)('DELETE', `/v1/members/${owner.userId}`),
      await as(admin)('PATCH', `/v1/members/${engineer.userId}`, { role: 'org_owner' }),
      await as(admin)('POST', '/v1/members/invitations', { email: uniqueEmail('accomplice'), role: 'org_owner' }),
    ];
    for (const res of attempts) {
      expect(res.status, res.text).toBe(403);
      expect(res.json.error.code).toBe('FORBIDDEN');
    }
    // A security_admin still manages the other roles, but not their own.
    expect((await as(admin)('PATCH', `/v1/members/${engineer.userId}`, { role: 'readonly_investigator' })).status).toBe(200);
    expect((await as(admin)('PATCH', `/v1/members/${admin.userId}`, { role: 'compliance_auditor' })).status).toBe(403);

    const members = (await as(owner)('GET', '/v1/members')).json.members as { user_id: string; role: string }[];
    expect(members.find((member) => member.user_id === owner.userId)?.role).toBe('org_owner');
    expect(members.find((member) => member.user_id === admin.userId)?.role).toBe('security_admin');
    expect(members.filter((member) => member.role === 'org_owner')).toHaveLength(1);

    // An owner grants org_owner; then that owner may take it away again.
    expect((await as(owner)('PATCH', `/v1/members/${admin.userId}`, { role: 'org_owner' })).status).toBe(200);
    expect((await as(admin)('PATCH', `/v1/members/${owner.userId}`, { role: 'security_admin' })).status).toBe(200);
  });

  it('states the rule in the OpenAPI description', async () => {
    const document = (await call('GET', '/v1/openapi.json')).json;
    expect(document.paths['/v1/members/{user_id}'].patch.description).toMatch(/Only an org_owner may grant or take away org_owner/);
    expect(document.paths['/v1/members/{user_id}'].delete.description).toMatch(/Only an org_owner may remove an org_owner/);
    expect(document.paths['/v1/members/invitations'].post.description).toMatch(/Only an org_owner may invite with the role org_owner/);
  });
});

describe('invitations', () => {
  it('lists pending ones newest first, can be cancelled (invitation.cancel), and a cancelled one cannot be accepted', async () => {
    const owner = await orgOwner(stack.baseUrl);
    const invitee = await signedInUser(stack.baseUrl, 'Maybe');
    const first = (await call('POST', '/v1/members/invitations', { token: owner.session, body: { email: uniqueEmail(), role: 'readonly_investigator' } })).json.invitation;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await call('POST', '/v1/members/invitations', { token: owner.session, body: { email: invitee.email, role: 'security_admin' } })).json.invitation;
    const listed = (await call('GET', '/v1/members/invitations', { token: owner.session })).json.invitations;
    expect(listed.map((invitation: { invitation_id: string }) => invitation.invitation_id)).toEqual([second.invitation_id, first.invitation_id]);

    const cancelled = await call('DELETE', `/v1/members/invitations/${second.invitation_id}`, { token: owner.session });
    expect(cancelled.status).toBe(200);
    expect((await call('DELETE', `/v1/members/invitations/${second.invitation_id}`, { token: owner.session })).status).toBe(404);
    expect((await call('GET', '/v1/invitations', { token: invitee.session })).json.invitations).toEqual([]);
    expect((await call('POST', `/v1/invitations/${second.invitation_id}/accept`, { token: invitee.session })).status).toBe(404);
    const actions = (await call('GET', '/v1/admin/events', { token: owner.session })).json.events.map((event: { action: string }) => event.action);
    expect(actions[0]).toBe('invitation.cancel');
  });

  it('can only be accepted by the invited email, and not by someone already in an organization (409)', async () => {
    const owner = await orgOwner(stack.baseUrl);
    const other = await signedInUser(stack.baseUrl, 'Other');
    const busy = await orgOwner(stack.baseUrl, 'Busy');
    const forOther = (await call('POST', '/v1/members/invitations', { token: owner.session, body: { email: busy.email, role: 'security_admin' } })).json.invitation;
    expect((await call('POST', `/v1/invitations/${forOther.invitation_id}/accept`, { token: other.session })).status).toBe(404);
    const already = await call('POST', `/v1/invitations/${forOther.invitation_id}/accept`, { token: busy.session });
    expect(already.status).toBe(409);
    expect(already.json.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses inviting a member or an email with a pending invitation (409)', async () => {
    const owner = await orgOwner(stack.baseUrl);
    expect((await call('POST', '/v1/members/invitations', { token: owner.session, body: { email: owner.email, role: 'org_owner' } })).status).toBe(409);
    const email = uniqueEmail();
    expect((await call('POST', '/v1/members/invitations', { token: owner.session, body: { email, role: 'org_owner' } })).status).toBe(201);
    expect((await call('POST', '/v1/members/invitations', { token: owner.session, body: { email, role: 'org_owner' } })).status).toBe(409);
    expect((await call('POST', '/v1/members/invitations', { token: owner.session, body: { email: 'x'.repeat(250) + '@a.test', role: 'org_owner' } })).status).toBe(400);
  });
});

describe('organization', () => {
  it('PATCH updates name and description (org.update); other roles read it but may not change it', async () => {
    const owner = await orgOwner(stack.baseUrl, 'Before');
    const reader = await signedInUser(stack.baseUrl, 'Reader');
    await join(owner, reader, 'readonly_investigator');
    const patched = await call('PATCH', '/v1/organization', { token: owner.session, body: { org_name: 'After', description: 'now described' } });
    expect(patched.status).toBe(200);
    expect(patched.json.organization).toMatchObject({ org_id: owner.orgId, org_name: 'After', description: 'now described' });
    expect((await call('GET', '/v1/organization', { token: reader.session })).json.organization.org_name).toBe('After');
    expect((await call('PATCH', '/v1/organization', { token: reader.session, body: { org_name: 'Mine' } })).status).toBe(403);
    expect((await call('PATCH', '/v1/organization', { token: owner.session, body: {} })).status).toBe(400);
    expect((await call('PATCH', '/v1/organization', { token: owner.session, body: { org_name: 'x'.repeat(129) } })).status).toBe(400);
    const [event] = (await call('GET', '/v1/admin/events?limit=1', { token: owner.session })).json.events;
    expect(event).toMatchObject({ action: 'org.update', target_type: 'organization', target_id: owner.orgId });
    expect(JSON.parse(event.details)).toEqual({ org_name: 'After', description: 'now described' });
  });
});

describe('GET /v1/admin/events limit (docs/API.md §4.6, §8)', () => {
  it('defaults to 20 and accepts 1..100 only', async () => {
    const owner = await orgOwner(stack.baseUrl);
    for (let i = 0; i < 21; i += 1) {
      await call('POST', '/v1/members/invitations', { token: owner.session, body: { email: uniqueEmail('bulk'), role: 'readonly_investigator' } });
    }
    expect((await call('GET', '/v1/admin/events', { token: owner.session })).json.events).toHaveLength(20);
    expect((await call('GET', '/v1/admin/events?limit=100', { token: owner.session })).json.events).toHaveLength(22);
    expect((await call('GET', '/v1/admin/events?limit=2', { token: owner.session })).json.events).toHaveLength(2);
    for (const limit of ['0', '101', 'abc', '1.5']) {
      expect((await call('GET', `/v1/admin/events?limit=${limit}`, { token: owner.session })).status, limit).toBe(400);
    }
  });
});
