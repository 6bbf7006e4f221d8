/** Reading the admin log (items written by admin-events.ts): an organization's events, newest first or by time. */
import { adminLogPartition, type AdminAction, type AdminEvent } from './admin-events.js';
import { padMs, queryPage, queryPages, type Item } from './dynamo.js';

function eventOf(item: Item): AdminEvent {
  return {
    event_id: String(item.event_id),
    org_id: String(item.org_id),
    actor: String(item.actor),
    action: item.action as AdminEvent['action'],
    target_type: String(item.target_type),
    target_id: String(item.target_id),
    details: (item.details as string | null | undefined) ?? null,
    created_at: Number(item.created_at),
  };
}

export async function newestAdminEvents(orgId: string, limit: number): Promise<AdminEvent[]> {
  const items = await queryPage({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': adminLogPartition(orgId) },
    ScanIndexForward: false,
    Limit: limit,
    ConsistentRead: true,
  });
  return items.map(eventOf);
}

/**
 * The events with one of `actions` and created_at in [from, to), oldest first, at most `limit`.
 * The sort key starts with created_at, so the range is a key condition; the actions are a
 * filter, so the read also passes over the range's other events (the admin log is small next
 * to the operations: a few events a day).
 */
export async function adminEventsBetween(orgId: string, range: { from: number; to: number }, actions: readonly AdminAction[], limit: number): Promise<AdminEvent[]> {
  const found: AdminEvent[] = [];
  const values = Object.fromEntries(actions.map((action, i) => [`:a${i}`, action]));
  const pages = queryPages({
    // `<to 13 digits>` sorts before every `<to>#<event_id>`: the end is exclusive.
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    FilterExpression: `#action IN (${Object.keys(values).join(', ')})`,
    ExpressionAttributeNames: { '#action': 'action' },
    ExpressionAttributeValues: { ':pk': adminLogPartition(orgId), ':from': padMs(range.from), ':to': padMs(range.to), ...values },
  });
  for await (const page of pages) {
    found.push(...page.map(eventOf));
    if (found.length >= limit) break;
  }
  return found.slice(0, limit);
}
