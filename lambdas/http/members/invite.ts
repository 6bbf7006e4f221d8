/** POST /v1/members/invitations {email, role} (org_owner, security_admin) → member.invite; HTTP 201 {invitation}. */
import { inviteMember } from '../../domain/orgs/invitations.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.inviteMember, async ({ caller, body }) => ({
  body: { invitation: await inviteMember(caller, body) },
}));
