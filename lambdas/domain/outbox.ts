/**
 * The transactional outbox (docs/EVENTS.md): items whose commit *is* an event carry it, and
 * the table's stream turns each new one into its events queue message
 * (lambdas/workers/forward-events.ts). So an event exists exactly when its fact committed: a
 * crash can neither lose one (the stream keeps the record until it is forwarded) nor invent
 * one (a refused or failed commit writes nothing), and every re-send carries the same
 * event_id.
 *
 * | new item  | event              | event_id                         |
 * |-----------|--------------------|----------------------------------|
 * | operation | operation.accepted | the receipt's queue_message_id   |
 * | epoch     | epoch.created      | the epoch_id                     |
 */
import type { EpochCreatedData, EventMessage, OperationAcceptedData } from './events.js';

type Item = Record<string, unknown>;

const text = (item: Item, name: string): string => String(item[name]);
const number = (item: Item, name: string): number => Number(item[name]);

/** docs/API.md §6.2: for operation.accepted, data holds operation_id and agent_id. */
function operationAccepted(item: Item): EventMessage {
  return {
    event: 'operation.accepted',
    event_id: text(item, 'queue_message_id'),
    org_id: text(item, 'org_id'),
    timestamp: number(item, 'created_at'),
    data: { operation_id: text(item, 'operation_id'), agent_id: text(item, 'agent_id') } satisfies OperationAcceptedData,
  };
}

/** epoch.created: {epoch_id, start_time, end_time, root_hash, leaf_count}. */
function epochCreated(item: Item): EventMessage {
  return {
    event: 'epoch.created',
    event_id: text(item, 'epoch_id'),
    org_id: text(item, 'org_id'),
    timestamp: number(item, 'created_at'),
    data: {
      epoch_id: text(item, 'epoch_id'),
      start_time: number(item, 'start_time'),
      end_time: number(item, 'end_time'),
      root_hash: text(item, 'root_hash'),
      leaf_count: number(item, 'leaf_count'),
    } satisfies EpochCreatedData,
  };
}

/** The event a newly inserted item carries, or null when it carries none. */
export function eventOfNewItem(item: Item): EventMessage | null {
  if (item.type === 'operation' && typeof item.queue_message_id === 'string') return operationAccepted(item);
  if (item.type === 'epoch') return epochCreated(item);
  return null;
}
