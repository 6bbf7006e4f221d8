/**
 * The read_all rule (SPEC.md §4.3, §5): once any assignment exists in an organization,
 * integration_engineer and readonly_investigator see only agents assigned to them, in
 * lists, gets and every endpoint that names an agent. An agent a caller may not see is
 * answered exactly like one that does not exist, so its existence does not leak.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../config.js';
import { dynamo } from '../../store/clients.js';
import { identityKeys, type OrgItem } from '../../store/identity-items.js';
import type { OrgCaller } from '../auth/caller.js';
import { READ_ALL_ROLES } from '../../shared/roles.js';

/** 'all', or the ids of the agents this caller may see. */
export type AgentScope = 'all' | ReadonlySet<string>;

async function assignmentsExist(orgId: string): Promise<boolean> {
  const org = (await dynamo().send(new GetCommand({ TableName: config().tableName, Key: identityKeys.org(orgId) })))
    .Item as OrgItem | undefined;
  return (org?.assignment_count ?? 0) > 0;
}

export async function agentScope(caller: OrgCaller): Promise<AgentScope> {
  if (READ_ALL_ROLES.includes(caller.role)) return 'all';
  if (!(await assignmentsExist(caller.orgId))) return 'all';
  const agents = new Set<string>();
  let cursor: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: config().tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': identityKeys.userAssignments(caller.orgId, caller.userId) },
        ProjectionExpression: 'agent_id',
        ExclusiveStartKey: cursor,
      }),
    );
    for (const item of page.Items ?? []) agents.add(String(item.agent_id));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return agents;
}

/** Whether the caller may see one agent: a point read instead of listing all assignments. */
export async function canSeeAgent(caller: OrgCaller, agentId: string): Promise<boolean> {
  if (READ_ALL_ROLES.includes(caller.role)) return true;
  if (!(await assignmentsExist(caller.orgId))) return true;
  const assignment = await dynamo().send(
    new GetCommand({ TableName: config().tableName, Key: identityKeys.assignment(caller.orgId, agentId, caller.userId) }),
  );
  return assignment.Item !== undefined;
}

export function inScope(scope: AgentScope, agentId: string): boolean {
  return scope === 'all' || scope.has(agentId);
}
