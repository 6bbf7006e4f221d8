/** DELETE /v1/members/invitations/:invitation_id (org_owner, security_admin) → invitation.cancel. */
import { cancelInvitation } from '../../domain/orgs/invitations.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.cancelInvitation, async ({ caller, params }) => {
  await cancelInvitation(caller, params.invitation_id);
  return { body: { deleted: true as const } };
});
