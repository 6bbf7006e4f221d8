/** PATCH /v1/agents/:agent_id (docs/API.md §4.3). */
import { updateAgent } from '../../domain/agents/update-agent.js';
import { agentRoutes } from '../../routes/route-table/agents.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(agentRoutes.updateAgent, async ({ caller, params, body }) => ({
  body: { agent: await updateAgent(caller, params.agent_id, body) },
}));
