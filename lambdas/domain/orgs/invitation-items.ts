/**
 * A new invitation and its admin event, as transaction items. Invitations expire after 7
 * days; the item is kept (with a DynamoDB TTL a month later) so the
 * admin log's target still resolves for a while.
 */
import { adminEventPut } from '../../store/admin-events.js';
import { identityKeys, type InvitationItem } from '../../store/identity-items.js';
import { invitationPut } from '../../store/orgs.js';
import type { TransactItem } from '../../store/guarded-transact.js';
import type { Role } from '../../shared/roles.js';

const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const KEEP_AFTER_EXPIRY_S = 30 * 24 * 60 * 60;

export function newInvitation(input: { orgId: string; email: string; role: Role; inviterId: string; now: number }): InvitationItem {
  const invitationId = crypto.randomUUID();
  const email = input.email.trim().toLowerCase();
  const expiresAt = input.now + INVITATION_TTL_MS;
  return {
    invitation_id: invitationId,
    org_id: input.orgId,
    email,
    role: input.role,
    status: 'pending',
    inviter_id: input.inviterId,
    created_at: new Date(input.now).toISOString(),
    expires_at: new Date(expiresAt).toISOString(),
    expires_at_ms: expiresAt,
    gsi1pk: identityKeys.invitee(email),
    gsi1sk: identityKeys.inviteeOrder(input.now, invitationId),
    expires_at_s: Math.ceil(expiresAt / 1000) + KEEP_AFTER_EXPIRY_S,
  };
}

/** The invitation's Put and its member.invite event (docs/API.md §6.3). */
export function invitationWrites(invitation: InvitationItem, now: number): TransactItem[] {
  return [
    invitationPut(invitation),
    adminEventPut({
      orgId: invitation.org_id,
      actor: invitation.inviter_id,
      action: 'member.invite',
      targetType: 'invitation',
      targetId: invitation.invitation_id,
      details: { email: invitation.email, role: invitation.role },
      now,
    }),
  ];
}
