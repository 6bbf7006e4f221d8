/**
 * The agents' freezes, unfreezes and revocations in a time range, from the admin log
 * (docs/API.md §2.13, §6.3), which records each in the same transaction as the change: the
 * marks on the console's activity charts.
 */
import type { AdminAction, AdminEvent } from '../../store/admin-events.js';
import { adminEventsBetween } from '../../store/admin-log.js';

const STATUS_ACTIONS = ['agent.freeze', 'agent.unfreeze', 'agent.revoke', 'key.revoke'] as const satisfies readonly AdminAction[];

/** At most this many events in one answer (docs/API.md §4.11). */
const MAX_STATUS_EVENTS = 500;

export interface StatusEvent {
  event_id: string;
  action: (typeof STATUS_ACTIONS)[number];
  agent_id: string;
  kid?: string;
  actor: string;
  reason?: string;
  created_at: number;
}

function statusEventOf(event: AdminEvent): StatusEvent {
  const details = (event.details === null ? {} : JSON.parse(event.details)) as { agent_id?: string; kid?: string; reason?: string };
  // Agent events target the agent; key.revoke targets `<agent_id>/<kid>` and names both in its details.
  const agentId = event.target_type === 'agent' ? event.target_id : (details.agent_id ?? event.target_id);
  return {
    event_id: event.event_id,
    action: event.action as StatusEvent['action'],
    agent_id: agentId,
    ...(details.kid === undefined ? {} : { kid: details.kid }),
    actor: event.actor,
    ...(details.reason === undefined ? {} : { reason: details.reason }),
    created_at: event.created_at,
  };
}

export async function statusEvents(orgId: string, range: { from: number; to: number }, agentId: string | undefined): Promise<StatusEvent[]> {
  // One agent's events are filtered here: the log is keyed by time, not by agent.
  const events = (await adminEventsBetween(orgId, range, STATUS_ACTIONS, agentId === undefined ? MAX_STATUS_EVENTS : Number.MAX_SAFE_INTEGER)).map(statusEventOf);
  return (agentId === undefined ? events : events.filter((event) => event.agent_id === agentId)).slice(0, MAX_STATUS_EVENTS);
}
