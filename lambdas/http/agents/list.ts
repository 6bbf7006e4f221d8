/** GET /v1/agents (docs/API.md §4.3): visible agents only (§5 read_all rule). */
import { listVisibleAgents } from '../../domain/agents/read-agents.js';
import { agentRoutes } from '../../routes/route-table/agents.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(agentRoutes.listAgents, async ({ caller }) => ({
  body: { agents: await listVisibleAgents(caller) },
}));
