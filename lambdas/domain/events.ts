/**
 * Messages on the `events` queue: one per webhook event of SPEC.md §6.1. The webhook worker
 * turns each into deliveries with the body of SPEC.md §6.2 ({event, delivery_id, org_id,
 * timestamp, data}).
 */
export type EventType = 'operation.accepted' | 'epoch.created' | 'agent.status_changed';

export interface EventMessage {
  event: EventType;
  /**
   * A stable id of the fact (docs/EVENTS.md): the same on every re-send of the message, so the
   * webhook worker derives each delivery's id from it and receivers de-duplicate on that.
   * operation.accepted: the receipt's queue_message_id; epoch.created: the epoch_id;
   * agent.status_changed: the id of the admin log entry of the change.
   */
  event_id: string;
  org_id: string;
  /** Unix ms when the event happened. */
  timestamp: number;
  /**
   * operation.accepted: {operation_id, agent_id} (SPEC.md §6.2);
   * epoch.created: {epoch_id, start_time, end_time, root_hash, leaf_count};
   * agent.status_changed: {agent_id, previous_status, status, reason}.
   */
  data: Record<string, unknown>;
}
