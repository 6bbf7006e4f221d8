/** PATCH /v1/agents/:agent_id (SPEC.md §4.3). */
import { updateAgent } from '../../domain/agents/update-agent.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.updateAgent, async ({ caller, params, body }) => ({
  body: { agent: await updateAgent(caller, params.agent_id, body) },
}));
