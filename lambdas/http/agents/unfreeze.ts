/** POST /v1/agents/:agent_id/unfreeze (docs/API.md §3, §4.3): only a frozen agent; otherwise VALIDATION_ERROR 409. */
import { changeStatus } from '../../domain/agents/agent-status.js';
import { queue } from '../../runtime/queue.js';
import { agentRoutes } from '../../routes/route-table/agents.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(agentRoutes.unfreezeAgent, async ({ caller, params, body }) => {
  const { agent, previous_status } = await changeStatus({ queue: queue() }, caller, params.agent_id, 'unfreeze', body.reason);
  return { body: { agent, previous_status } };
});
