/**
 * The admin log (docs/API.md §2.13, §6.3). An event is written as one more item of the same
 * TransactWriteItems as the change it records, so the log can neither miss a change nor
 * record one that did not happen.
 *
 * Layout: pk `ORG#<org_id>#ADMIN`, sk `<created_at, 13 digits>#<event_id>`; a Query with
 * ScanIndexForward=false lists newest first.
 */
import { randomUUID } from 'node:crypto';
import { padMs, table, type TransactItem } from './dynamo.js';

/** docs/API.md §6.3 actions. */
export type AdminAction =
  | 'agent.register'
  | 'agent.update'
  | 'agent.freeze'
  | 'agent.unfreeze'
  | 'agent.revoke'
  | 'agent.delete'
  | 'key.revoke'
  /** Not in docs/API.md §6.3, which shows no endpoint for them; recorded all the same. */
  | 'key.add'
  | 'key.retire'
  | 'export.create'
  | 'org.create'
  | 'org.update'
  | 'member.invite'
  | 'invitation.cancel'
  /** Not in docs/API.md §6.3; a join through an invitation is visible in the admin log. */
  | 'invitation.accept'
  | 'member.remove'
  | 'member.role_change'
  | 'agent.assign'
  | 'agent.unassign'
  | 'webhook.register'
  | 'webhook.delete'
  /** Not in docs/API.md §6.3: a webhook whose deliveries kept failing was disabled, and one was enabled again. */
  | 'webhook.disable'
  | 'webhook.enable'
  /** An operation's payload erased by an owner (POST /v1/operations/:id/erase-payload). */
  | 'operation.payload_erase'
  /** Not in docs/API.md §6.3: API tokens issued, rotated and revoked (docs/API.md §4.1). */
  | 'token.create'
  | 'token.rotate'
  | 'token.revoke';

export interface AdminEvent {
  event_id: string;
  org_id: string;
  actor: string;
  action: AdminAction;
  target_type: string;
  target_id: string;
  /** JSON-encoded string or null (docs/API.md §2.13). */
  details: string | null;
  created_at: number;
}

export const adminLogPartition = (orgId: string) => `ORG#${orgId}#ADMIN`;

function adminEventSortKey(createdAt: number, eventId: string): string {
  return `${padMs(createdAt)}#${eventId}`;
}

interface AdminEventInput {
  orgId: string;
  actor: string;
  action: AdminAction;
  targetType: string;
  targetId: string;
  details?: Record<string, unknown> | null;
  now?: number;
  /** The event's id when the caller needs it beforehand (it names the webhook event of the same fact); default a new UUID. */
  eventId?: string;
}

/** The Put of one admin event, to add to the transaction that makes the change. */
export function adminEventPut(input: AdminEventInput): TransactItem {
  const event: AdminEvent = {
    event_id: input.eventId ?? randomUUID(),
    org_id: input.orgId,
    actor: input.actor,
    action: input.action,
    target_type: input.targetType,
    target_id: input.targetId,
    details: input.details ? JSON.stringify(input.details) : null,
    created_at: input.now ?? Date.now(),
  };
  return {
    Put: {
      TableName: table(),
      Item: { pk: adminLogPartition(input.orgId), sk: adminEventSortKey(event.created_at, event.event_id), type: 'admin_event', ...event },
    },
  };
}
