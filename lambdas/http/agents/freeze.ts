/** POST /v1/agents/:agent_id/freeze (docs/API.md §3, §4.3). */
import { changeStatus } from '../../domain/agents/agent-status.js';
import { queue } from '../../runtime/queue.js';
import { agentRoutes } from '../../routes/route-table/agents.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(agentRoutes.freezeAgent, async ({ caller, params, body }) => {
  const { agent, previous_status } = await changeStatus({ queue: queue() }, caller, params.agent_id, 'freeze', body.reason);
  return { body: { agent, previous_status } };
});
