/** Reading the admin log (items written by admin-events.ts): an organization's events, newest first. */
import { adminLogPartition, type AdminEvent } from './admin-events.js';
import { queryPage } from './dynamo.js';

export async function newestAdminEvents(orgId: string, limit: number): Promise<AdminEvent[]> {
  const items = await queryPage({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': adminLogPartition(orgId) },
    ScanIndexForward: false,
    Limit: limit,
    ConsistentRead: true,
  });
  return items.map((item) => ({
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
