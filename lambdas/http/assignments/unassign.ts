/** DELETE /v1/agents/:agent_id/assignments/:user_id (docs/API.md §4.4): {deleted: true}; agent.unassign. */
import { unassignAgent } from '../../domain/orgs/assignments.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.unassignAgent, async ({ caller, params }) => {
  await unassignAgent(caller, params.agent_id, params.user_id);
  return { body: { deleted: true as const } };
});
