/**
 * The read_all rule (docs/API.md §4.3, §5): once any assignment exists in an organization,
 * integration_engineer and readonly_investigator see only agents assigned to them, in
 * lists, gets and every endpoint that names an agent. An agent a caller may not see is
 * answered exactly like one that does not exist, so its existence does not leak.
 */
import { assignedAgentIds, getAssignment, getOrg } from '../../store/orgs.js';
import type { OrgCaller } from '../auth/caller.js';
import { READ_ALL_ROLES } from '../../shared/roles.js';

/** 'all', or the ids of the agents this caller may see. */
type AgentScope = 'all' | ReadonlySet<string>;

async function assignmentsExist(orgId: string): Promise<boolean> {
  const org = await getOrg(orgId);
  return (org?.assignment_count ?? 0) > 0;
}

export async function agentScope(caller: OrgCaller): Promise<AgentScope> {
  if (READ_ALL_ROLES.includes(caller.role)) return 'all';
  if (!(await assignmentsExist(caller.orgId))) return 'all';
  return new Set(await assignedAgentIds(caller.orgId, caller.userId));
}

/** Whether the caller may see one agent: a point read instead of listing all assignments. */
export async function canSeeAgent(caller: OrgCaller, agentId: string): Promise<boolean> {
  if (READ_ALL_ROLES.includes(caller.role)) return true;
  if (!(await assignmentsExist(caller.orgId))) return true;
  return (await getAssignment(caller.orgId, agentId, caller.userId)) !== undefined;
}

export function inScope(scope: AgentScope, agentId: string): boolean {
  return scope === 'all' || scope.has(agentId);
}
