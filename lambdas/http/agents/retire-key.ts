/** POST /v1/agents/:agent_id/keys/:kid/retire: active → retired; admin event key.retire. */
import { retireKey } from '../../domain/agents/agent-keys.js';
import { agentRoutes } from '../../routes/route-table/agents.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(agentRoutes.retireAgentKey, async ({ caller, params, body }) => ({
  body: { key: await retireKey(caller, params.agent_id, params.kid, body?.reason) },
}));
