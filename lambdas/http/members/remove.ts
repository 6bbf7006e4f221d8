/** DELETE /v1/members/:user_id (org_owner, security_admin) → member.remove. */
import { removeMember } from '../../domain/orgs/members.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.removeMember, async ({ caller, params }) => {
  await removeMember(caller, params.user_id);
  return { body: { deleted: true as const } };
});
