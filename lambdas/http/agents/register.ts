/** POST /v1/agents/register (docs/API.md §4.3). */
import { registerAgent } from '../../domain/agents/register-agent.js';
import { agentRoutes } from '../../routes/route-table/agents.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(agentRoutes.registerAgent, async ({ caller, body }) => ({
  body: await registerAgent(caller, body),
}));
