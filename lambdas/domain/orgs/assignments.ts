/**
 * Agent assignments (docs/API.md §2.6, §4.4). An assignment names a member and an agent of the
 * caller's organization; both are checked inside the transaction that writes it (a
 * ConditionCheck each), together with the org's assignment_count, which switches the
 * read_all rule on (domain/access/agent-visibility.ts), and the admin event.
 */
import { adminEventPut } from '../../store/admin-events.js';
import { readAgent } from '../../store/agents.js';
import { identityKeys, type AssignmentItem, type MemberItem } from '../../store/identity-items.js';
import {
  assignmentDelete,
  assignmentPut,
  batchGet,
  exists,
  getMember,
  listAgentAssignments,
  listUserAssignments,
  orgCounters,
} from '../../store/orgs.js';
import { transact } from '../../store/guarded-transact.js';
import { ledgerKeys, type AgentItem } from '../../store/ledger-items.js';
import type { OrgCaller } from '../auth/caller.js';
import { LedgerError, conflict, notFound } from '../../shared/errors.js';
import { ADMINS } from '../../shared/roles.js';
import { assignmentView } from './member-views.js';

async function existingAgent(orgId: string, agentId: string): Promise<AgentItem> {
  const agent = await readAgent(orgId, agentId);
  if (!agent) throw notFound(`agent ${agentId}`);
  return agent;
}

/** GET /v1/agents/:agent_id/assignments: with each member's email and display_name. */
export async function agentAssignments(caller: OrgCaller, agentId: string) {
  await existingAgent(caller.orgId, agentId);
  const assignments = await listAgentAssignments(caller.orgId, agentId);
  const members = new Map(
    (await batchGet<MemberItem>(assignments.map((assignment) => identityKeys.member(caller.orgId, assignment.user_id)))).map((member) => [
      member.user_id,
      member,
    ]),
  );
  return assignments
    .filter((assignment) => members.has(assignment.user_id))
    .sort((a, b) => a.created_at - b.created_at)
    .map((assignment) => {
      const member = members.get(assignment.user_id)!;
      return { ...assignmentView(assignment), email: member.email, display_name: member.display_name };
    });
}

export async function assignAgent(caller: OrgCaller, agentId: string, userId: string, now = Date.now()) {
  await existingAgent(caller.orgId, agentId);
  const notMember = () => new LedgerError('VALIDATION_ERROR', `body.user_id: ${userId} is not a member of this organization`);
  if (!(await getMember(caller.orgId, userId))) throw notMember();
  const assignment: AssignmentItem = {
    id: crypto.randomUUID(),
    agent_id: agentId,
    user_id: userId,
    org_id: caller.orgId,
    assigned_by: caller.userId,
    created_at: now,
    gsi1pk: identityKeys.userAssignments(caller.orgId, userId),
    gsi1sk: agentId,
  };
  await transact([
    { item: assignmentPut(assignment), onConditionFailed: () => conflict(`agent ${agentId} is already assigned to ${userId}`) },
    { item: exists(identityKeys.member(caller.orgId, userId)), onConditionFailed: notMember },
    { item: exists(ledgerKeys.agent(caller.orgId, agentId)), onConditionFailed: () => notFound(`agent ${agentId}`) },
    { item: orgCounters(caller.orgId, { assignments: 1 }), onConditionFailed: () => notFound('organization') },
    {
      item: adminEventPut({
        orgId: caller.orgId,
        actor: caller.userId,
        action: 'agent.assign',
        targetType: 'agent',
        targetId: agentId,
        details: { user_id: userId },
        now,
      }),
    },
  ]);
  return assignmentView(assignment);
}

export async function unassignAgent(caller: OrgCaller, agentId: string, userId: string, now = Date.now()): Promise<void> {
  await transact([
    { item: assignmentDelete(caller.orgId, agentId, userId), onConditionFailed: () => notFound(`assignment of agent ${agentId} to ${userId}`) },
    { item: orgCounters(caller.orgId, { assignments: -1 }), onConditionFailed: () => notFound('organization') },
    {
      item: adminEventPut({
        orgId: caller.orgId,
        actor: caller.userId,
        action: 'agent.unassign',
        targetType: 'agent',
        targetId: agentId,
        details: { user_id: userId },
        now,
      }),
    },
  ]);
}

/**
 * GET /v1/members/:user_id/agents: the user themselves, org_owner or security_admin
 * (docs/API.md §4.4). The route admits every role; this is the "themselves" half of the rule.
 */
export async function userAgents(caller: OrgCaller, userId: string) {
  if (caller.userId !== userId && !ADMINS.includes(caller.role)) {
    throw new LedgerError('FORBIDDEN', `role ${caller.role} may list only its own assigned agents`);
  }
  if (!(await getMember(caller.orgId, userId))) throw notFound(`member ${userId}`);
  const assignments = await listUserAssignments(caller.orgId, userId);
  const agents = new Map(
    (await batchGet<AgentItem>(assignments.map((assignment) => ledgerKeys.agent(caller.orgId, assignment.agent_id)))).map((agent) => [
      agent.agent_id,
      agent,
    ]),
  );
  return assignments
    .filter((assignment) => agents.has(assignment.agent_id))
    .sort((a, b) => a.created_at - b.created_at)
    .map((assignment) => {
      const agent = agents.get(assignment.agent_id)!;
      return {
        ...assignmentView(assignment),
        agent_display_name: agent.display_name,
        integration_type: agent.integration_type,
        agent_status: agent.status,
      };
    });
}
