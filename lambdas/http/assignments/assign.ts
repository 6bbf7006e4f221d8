/** POST /v1/agents/:agent_id/assignments {user_id} (docs/API.md §4.4): HTTP 201 assignment; agent.assign. */
import { assignAgent } from '../../domain/orgs/assignments.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.assignAgent, async ({ caller, params, body }) => ({
  body: await assignAgent(caller, params.agent_id, body.user_id),
}));
