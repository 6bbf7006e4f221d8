/** POST /v1/agents/:agent_id/keys: adds a key; admin event key.add. */
import { addKey } from '../../domain/agents/agent-keys.js';
import { agentRoutes } from '../../routes/route-table/agents.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(agentRoutes.addAgentKey, async ({ caller, params, body }) => ({
  body: { key: await addKey(caller, params.agent_id, body) },
}));
