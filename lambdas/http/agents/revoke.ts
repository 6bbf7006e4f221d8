/**
 * POST /v1/agents/:agent_id/revoke: with `kid`, revokes that key and answers {key}
 * (docs/API.md §3, §4.3); without, revokes the agent and all its keys.
 */
import { changeStatus } from '../../domain/agents/agent-status.js';
import { revokeKey } from '../../domain/agents/agent-keys.js';
import { queue } from '../../runtime/queue.js';
import { agentRoutes } from '../../routes/route-table/agents.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(agentRoutes.revokeAgent, async ({ caller, params, body }) => {
  if (body.kid !== undefined) {
    return { body: { key: await revokeKey(caller, params.agent_id, body.kid, body.reason) } };
  }
  const { agent, previous_status, keys = [] } = await changeStatus({ queue: queue() }, caller, params.agent_id, 'revoke', body.reason);
  return { body: { agent, previous_status, keys } };
});
