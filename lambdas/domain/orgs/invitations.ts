/**
 * Invitations (docs/API.md §2.9, §4.4): admins invite an email with a
 * role; the person signed in with that email sees the invitation (GET /v1/invitations) and
 * accepting it makes them a member with that role, completing their onboarding. Each change
 * is one transaction with its admin event.
 *
 * "The person with that email" means one who proved they own it (docs/API.md §4.1 verification
 * mail; identity/email-verification.ts): signing up with an address proves nothing, so an
 * unverified user sees no invitations (an empty list: nothing to act on yet, and nothing
 * about who invited the address leaks) and accepting is FORBIDDEN until they verify.
 */
import { adminEventPut } from '../../store/admin-events.js';
import type { InvitationItem, OrgItem } from '../../store/identity-items.js';
import { identityKeys } from '../../store/identity-items.js';
import {
  batchGet,
  getMember,
  invitationStatus,
  listInvitationsFor,
  listOrgInvitations,
  memberPut,
  orgCounters,
  userJoin,
} from '../../store/orgs.js';
import { transact } from '../../store/guarded-transact.js';
import { userIdByEmail } from '../../store/users.js';
import type { Caller, OrgCaller } from '../auth/caller.js';
import { LedgerError, conflict, notFound } from '../../shared/errors.js';
import type { Role } from '../../shared/roles.js';
import { invitationWrites, newInvitation } from './invitation-items.js';
import { invitationView, isOpen, newestFirst } from './member-views.js';
import { assertMayChangeMember, callerStillOwner, touchesOwner } from './owner-rights.js';

export async function inviteMember(caller: OrgCaller, input: { email: string; role: Role }, now = Date.now()) {
  assertMayChangeMember(caller, null, null, input.role);
  const email = input.email.trim().toLowerCase();
  const existingUserId = await userIdByEmail(email);
  if (existingUserId && (await getMember(caller.orgId, existingUserId))) throw conflict(`${email} is already a member`);
  // One open invitation per email and organization: a second would only confuse the invitee.
  const open = (await listOrgInvitations(caller.orgId)).some((invitation) => invitation.email === email && isOpen(invitation, now));
  if (open) throw conflict(`${email} already has a pending invitation; cancel it first`);
  const invitation = newInvitation({ orgId: caller.orgId, email, role: input.role, inviterId: caller.userId, now });
  await transact([...(touchesOwner(null, input.role) ? [callerStillOwner(caller)] : []), ...invitationWrites(invitation, now).map((item) => ({ item }))]);
  return invitationView(invitation);
}

export async function cancelInvitation(caller: OrgCaller, invitationId: string, now = Date.now()): Promise<void> {
  await transact([
    {
      item: invitationStatus(caller.orgId, invitationId, 'cancelled', now),
      onConditionFailed: () => notFound(`pending invitation ${invitationId}`),
    },
    {
      item: adminEventPut({
        orgId: caller.orgId,
        actor: caller.userId,
        action: 'invitation.cancel',
        targetType: 'invitation',
        targetId: invitationId,
        now,
      }),
    },
  ]);
}

/** GET /v1/members/invitations: pending ones, newest first (docs/API.md §4.4). */
export async function pendingInvitations(caller: OrgCaller, now = Date.now()) {
  return (await listOrgInvitations(caller.orgId))
    .filter((invitation) => isOpen(invitation, now))
    .sort(newestFirst)
    .map(invitationView);
}

async function openInvitationsFor(caller: Caller, now: number): Promise<InvitationItem[]> {
  return (await listInvitationsFor(caller.email)).filter((invitation) => isOpen(invitation, now)).sort(newestFirst);
}

/** GET /v1/invitations: open invitations addressed to the caller's verified email, with who invites. */
export async function receivedInvitations(caller: Caller, now = Date.now()) {
  if (!caller.emailVerified) return [];
  const invitations = await openInvitationsFor(caller, now);
  const orgIds = [...new Set(invitations.map((invitation) => invitation.org_id))];
  const orgs = new Map((await batchGet<OrgItem>(orgIds.map(identityKeys.org))).map((org) => [org.org_id, org]));
  return invitations
    .filter((invitation) => orgs.has(invitation.org_id))
    .map((invitation) => ({ ...invitationView(invitation), org_id: invitation.org_id, org_name: orgs.get(invitation.org_id)!.org_name }));
}

/**
 * POST /v1/invitations/:invitation_id/accept. Only the invitee (the caller's email) can see
 * or accept an invitation; a user already in an organization gets 409.
 */
export async function acceptInvitation(caller: Caller, invitationId: string, now = Date.now()): Promise<{ org_id: string; role: Role }> {
  if (!caller.emailVerified) {
    throw new LedgerError(
      'FORBIDDEN',
      'verify your email address first: follow the link in the verification mail (POST /api/auth/send-verification-email sends a new one)',
    );
  }
  const invitation = (await openInvitationsFor(caller, now)).find((candidate) => candidate.invitation_id === invitationId);
  if (!invitation) throw notFound(`pending invitation ${invitationId}`);
  const orgId = invitation.org_id;
  await transact([
    { item: userJoin(caller.userId, orgId, invitation.role, now), onConditionFailed: () => conflict('you are already in an organization') },
    {
      item: invitationStatus(orgId, invitationId, 'accepted', now),
      onConditionFailed: () => notFound(`pending invitation ${invitationId}`),
    },
    {
      item: memberPut(orgId, {
        member_id: crypto.randomUUID(),
        user_id: caller.userId,
        role: invitation.role,
        joined_at: new Date(now).toISOString(),
        email: caller.email,
        display_name: caller.displayName,
      }),
      onConditionFailed: () => conflict('you are already a member of this organization'),
    },
    {
      item: orgCounters(orgId, { owners: invitation.role === 'org_owner' ? 1 : 0 }),
      onConditionFailed: () => notFound('organization'),
    },
    {
      item: adminEventPut({
        orgId,
        actor: caller.userId,
        action: 'invitation.accept',
        targetType: 'member',
        targetId: caller.userId,
        details: { invitation_id: invitationId, email: invitation.email, role: invitation.role },
        now,
      }),
    },
  ]);
  return { org_id: orgId, role: invitation.role };
}
