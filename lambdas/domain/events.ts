/**
 * Messages on the `events` queue: one per webhook event of docs/API.md §6.1. The webhook fan-out
 * worker (workers/webhook-fanout.ts) turns each into one delivery per subscribed webhook,
 * with the body of docs/API.md §6.2 ({event, delivery_id, org_id, timestamp, data}).
 *
 * The data shapes below are the public contract of the deliveries (documented in the OpenAPI
 * document's `webhooks` section, lambdas/routes/schemas/webhooks.ts); producers may change how
 * they send, never these shapes.
 */
import type { EventType } from '../shared/event-types.js';

export type { EventType };

/** docs/API.md §6.2: for operation.accepted, data holds operation_id and agent_id. */
export interface OperationAcceptedData {
  operation_id: string;
  agent_id: string;
}

/** The epoch of docs/API.md §2.11 as it was committed (times in Unix ms, root_hash base64url). */
export interface EpochCreatedData {
  epoch_id: string;
  start_time: number;
  end_time: number;
  root_hash: string;
  leaf_count: number;
}

/** An agent's status change (docs/API.md §3): `from` → `to`, with the reason the caller gave. */
export interface AgentStatusChangedData {
  agent_id: string;
  from: string;
  to: string;
  reason: string;
}

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
  /** One of the *Data shapes above, by `event` (producers check theirs with `satisfies`). */
  data: Record<string, unknown>;
}
