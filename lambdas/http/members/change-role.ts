/** PATCH /v1/members/:user_id {role} (org_owner, security_admin) → member.role_change. */
import { changeRole } from '../../domain/orgs/members.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.changeMemberRole, async ({ caller, params, body }) => ({
  body: { member: await changeRole(caller, params.user_id, body.role) },
}));
