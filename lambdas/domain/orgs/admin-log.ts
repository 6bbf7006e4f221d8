/** GET /v1/admin/events (SPEC.md §4.6, §2.13): the organization's admin log, newest first. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { adminLogPartition, type AdminEvent } from '../../store/admin-events.js';
import { table } from '../../store/guarded-transact.js';
import { dynamo } from '../../store/clients.js';
import type { OrgCaller } from '../auth/caller.js';

export async function adminEvents(caller: OrgCaller, limit: number): Promise<AdminEvent[]> {
  const result = await dynamo().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': adminLogPartition(caller.orgId) },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).map((item) => ({
    event_id: String(item.event_id),
    org_id: String(item.org_id),
    actor: String(item.actor),
    action: item.action as AdminEvent['action'],
    target_type: String(item.target_type),
    target_id: String(item.target_id),
    details: (item.details as string | null | undefined) ?? null,
    created_at: Number(item.created_at),
  }));
}
