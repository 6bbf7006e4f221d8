/**
 * Looks behind the API for ledger tests: the admin log (docs/API.md §2.13) and the messages the
 * handlers sent on the in-process events queue. Uses the process's configured table (the
 * test stack sets it) and the stack's queue.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { vi } from 'vitest';
import { adminLogPartition } from '../../lambdas/store/admin-events.js';
import type { MemoryQueue } from '../../lambdas/adapters/local/memory-queue.js';
import { config } from '../../lambdas/config.js';
import type { EventMessage } from '../../lambdas/domain/events.js';
import type { QueueName } from '../../lambdas/domain/ports.js';
import { dynamo } from '../../lambdas/store/clients.js';

export interface StoredAdminEvent {
  event_id: string;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  details: string | null;
  created_at: number;
}

/** The organization's admin log, oldest first. */
export async function adminEvents(orgId: string): Promise<StoredAdminEvent[]> {
  const out = await dynamo().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': adminLogPartition(orgId) },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []) as StoredAdminEvent[];
}

/** Records every message sent on the queue while still delivering it; `events()` lists those of the events queue. */
export function recordQueue(queue: MemoryQueue) {
  const sent: { queue: QueueName; body: EventMessage; messageId: string }[] = [];
  const original = queue.send.bind(queue);
  const spy = vi.spyOn(queue, 'send').mockImplementation(async (name, message) => {
    const messageId = await original(name, message);
    sent.push({ queue: name, body: message.body as EventMessage, messageId });
    return messageId;
  });
  return {
    events: () => sent.filter((entry) => entry.queue === 'events'),
    restore: () => spy.mockRestore(),
  };
}
