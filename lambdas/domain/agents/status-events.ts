/**
 * The `agent.status_changed` webhook event (docs/API.md §6.1), sent on the events queue after
 * the status change committed. The admin log entry is written in the same transaction as the
 * change and is the durable record; if the queue refuses the message, the change stands, the
 * failure is logged at error level and the caller still gets its answer (a retry of the
 * request would only meet a 409, since the change is done).
 */
import { logger } from '../../logger.js';
import type { AgentStatus } from '../../store/ledger-items.js';
import type { AgentStatusChangedData, EventMessage } from '../events.js';
import type { Ports } from '../ports.js';

export async function announceStatusChange({ queue }: Pick<Ports, 'queue'>, input: {
  /** The id of the change's admin event: the stable id of this fact. */
  eventId: string;
  orgId: string;
  agentId: string;
  previousStatus: AgentStatus;
  status: AgentStatus;
  reason: string;
  at: number;
}): Promise<void> {
  const message: EventMessage = {
    event: 'agent.status_changed',
    event_id: input.eventId,
    org_id: input.orgId,
    timestamp: input.at,
    data: { agent_id: input.agentId, from: input.previousStatus, to: input.status, reason: input.reason } satisfies AgentStatusChangedData,
  };
  try {
    await queue.send('events', { body: message });
  } catch (error) {
    logger.error('agent.status_changed event not sent', {
      agent_id: input.agentId,
      status: input.status,
      error: error instanceof Error ? error : String(error),
    });
  }
}
