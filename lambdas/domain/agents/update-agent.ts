/** PATCH /v1/agents/:agent_id (docs/API.md §4.3): integration type and display fields; admin event agent.update. */
import { adminEventPut } from '../../store/admin-events.js';
import { updateAgentFields } from '../../store/agents.js';
import type { AgentItem } from '../../store/ledger-items.js';
import type { OrgCaller } from '../auth/caller.js';
import { agentView, type AgentView } from './agent-view.js';
import { findVisibleAgent } from './find-agent.js';
import { RETRY, withRetries } from './optimistic.js';

interface UpdateAgentInput {
  integration_type: AgentItem['integration_type'];
  display_name?: string | undefined;
  responsible_entity?: string | null | undefined;
}

export async function updateAgent(caller: OrgCaller, agentId: string, input: UpdateAgentInput, now = Date.now()): Promise<AgentView> {
  const changes: Record<string, string | null> = { integration_type: input.integration_type };
  if (input.display_name !== undefined) changes.display_name = input.display_name;
  if (input.responsible_entity !== undefined) changes.responsible_entity = input.responsible_entity;
  return withRetries(async () => {
    // A missing (or deleted meanwhile) agent is NOT_FOUND from here.
    const agent = await findVisibleAgent(caller, agentId);
    const event = adminEventPut({
      orgId: caller.orgId,
      actor: caller.userId,
      action: 'agent.update',
      targetType: 'agent',
      targetId: agentId,
      details: { ...changes, previous_integration_type: agent.integration_type },
      now,
    });
    const committed = await updateAgentFields(caller.orgId, agentId, { ...changes, updated_at: now }, event);
    return committed ? agentView({ ...agent, ...changes, updated_at: now } as AgentItem) : RETRY;
  });
}
