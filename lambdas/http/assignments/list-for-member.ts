/** GET /v1/members/:user_id/agents (docs/API.md §4.4): the user themselves, org_owner, security_admin. */
import { userAgents } from '../../domain/orgs/assignments.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.memberAgents, async ({ caller, params }) => ({
  body: { agents: await userAgents(caller, params.user_id) },
}));
