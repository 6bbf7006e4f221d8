/** GET /v1/agents/:agent_id (docs/API.md §4.3) with the agent's chain head. */
import { getAgentDetail } from '../../domain/agents/read-agents.js';
import { agentRoutes } from '../../routes/route-table/agents.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(agentRoutes.getAgent, async ({ caller, params }) => ({
  body: await getAgentDetail(caller, params.agent_id),
}));
