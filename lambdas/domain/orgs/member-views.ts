/** Responses built from organization items (docs/API.md §2.6, §2.8, §2.9). */
import type { AssignmentItem, InvitationItem, MemberItem, OrgItem } from '../../store/identity-items.js';

export const memberView = (member: MemberItem) => ({
  member_id: member.member_id,
  user_id: member.user_id,
  role: member.role,
  joined_at: member.joined_at,
  email: member.email,
  display_name: member.display_name,
});

export const invitationView = (invitation: InvitationItem) => ({
  invitation_id: invitation.invitation_id,
  email: invitation.email,
  role: invitation.role,
  status: invitation.status,
  inviter_id: invitation.inviter_id,
  created_at: invitation.created_at,
  expires_at: invitation.expires_at,
});

export const organizationView = (org: OrgItem) => ({
  org_id: org.org_id,
  org_name: org.org_name,
  description: org.description,
  created_at: org.created_at,
  updated_at: org.updated_at,
  created_by: org.created_by,
  require_key_proof: org.require_key_proof === true,
  max_token_ttl_seconds: org.max_token_ttl_seconds ?? null,
});

export const assignmentView = (assignment: AssignmentItem) => ({
  id: assignment.id,
  agent_id: assignment.agent_id,
  user_id: assignment.user_id,
  org_id: assignment.org_id,
  assigned_by: assignment.assigned_by,
  created_at: assignment.created_at,
});

/** Pending and not expired: the only invitations docs/API.md §4.4 lists, and the only ones that can be accepted. */
export const isOpen = (invitation: InvitationItem, now: number) => invitation.status === 'pending' && invitation.expires_at_ms > now;

/** Newest first (docs/API.md §4.4). */
export const newestFirst = (a: InvitationItem, b: InvitationItem) => b.created_at.localeCompare(a.created_at);
