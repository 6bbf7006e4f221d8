/** GET /v1/agents/:agent_id/assignments (docs/API.md §4.4). */
import { agentAssignments } from '../../domain/orgs/assignments.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.listAssignments, async ({ caller, params }) => ({
  body: { assignments: await agentAssignments(caller, params.agent_id) },
}));
