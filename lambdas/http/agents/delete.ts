/** DELETE /v1/agents/:agent_id (docs/API.md §4.3): permanent; operations stay verifiable. */
import { deleteAgent } from '../../domain/agents/delete-agent.js';
import { agentRoutes } from '../../routes/route-table/agents.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(agentRoutes.deleteAgent, async ({ caller, params }) => {
  await deleteAgent(caller, params.agent_id);
  return { body: { deleted: true as const } };
});
