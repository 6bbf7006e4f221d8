/** GET /v1/agents/:agent_id/attempts (docs/API.md §4.3 "Refused attempts"): newest first. */
import { listAttempts } from '../../domain/agents/read-attempts.js';
import { agentRoutes } from '../../routes/route-table/agents.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(agentRoutes.listAgentAttempts, async ({ caller, params, query }) => ({
  body: await listAttempts(caller, params.agent_id, query),
}));
