/** DELETE /v1/members/:user_id (org_owner, security_admin) → member.remove. */
import { removeMember } from '../../domain/orgs/members.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.removeMember, async ({ caller, params }) => {
  await removeMember(caller, params.user_id);
  return { body: { deleted: true as const } };
});
