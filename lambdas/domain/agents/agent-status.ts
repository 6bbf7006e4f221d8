/**
 * Agent status transitions (docs/API.md §3): freeze (active → frozen), unfreeze (frozen →
 * active) and, beyond docs/API.md §3's table, revoke (active or frozen → revoked, permanent,
 * every key revoked with it). Any other transition is VALIDATION_ERROR 409. Each change
 * writes its admin event in the same transaction and then sends agent.status_changed.
 */
import { keyLogChange, type KeyLogAppend } from './key-log.js';
import { randomUUID } from 'node:crypto';
import type { AdminAction } from '../../store/admin-events.js';
import { adminEventPut } from '../../store/admin-events.js';
import { changeAgentStatus, listKeys } from '../../store/agents.js';
import type { AgentStatus } from '../../store/ledger-items.js';
import type { OrgCaller } from '../auth/caller.js';
import { conflict } from '../../shared/errors.js';
import { agentView, keyView, type AgentView, type KeyView } from './agent-view.js';
import { findVisibleAgent } from './find-agent.js';
import { keyEndClock } from './key-end.js';
import { RETRY, withRetries } from './optimistic.js';
import type { Ports } from '../ports.js';
import { announceStatusChange } from './status-events.js';

type Transition = 'freeze' | 'unfreeze' | 'revoke';

const TRANSITIONS: Record<Transition, { from: readonly AgentStatus[]; to: AgentStatus; action: AdminAction }> = {
  freeze: { from: ['active'], to: 'frozen', action: 'agent.freeze' },
  unfreeze: { from: ['frozen'], to: 'active', action: 'agent.unfreeze' },
  revoke: { from: ['active', 'frozen'], to: 'revoked', action: 'agent.revoke' },
};

/** Why `transition` is not allowed from `status`, or null when it is. */
function refusal(transition: Transition, status: AgentStatus): string | null {
  if (TRANSITIONS[transition].from.includes(status)) return null;
  if (status === 'revoked') return 'the agent is revoked; revoked agents cannot be changed or reactivated';
  if (transition === 'unfreeze') return `the agent is not frozen (status ${status})`;
  return `the agent is already ${status}`;
}

interface StatusChangeResult {
  agent: AgentView;
  previous_status: AgentStatus;
  /** Agent revocation only: the keys, all revoked. */
  keys?: KeyView[];
}

const appendsNothing: KeyLogAppend = async (drafts) => {
  if (drafts.length > 0) throw new Error('only a revocation appends key events');
  return [];
};

export async function changeStatus(
  ports: Pick<Ports, 'queue'>,
  caller: OrgCaller,
  agentId: string,
  transition: Transition,
  reason: string,
  requestedAt = Date.now(),
): Promise<StatusChangeResult> {
  const { to, action } = TRANSITIONS[transition];
  // The admin event's id also names the agent.status_changed event of the same change.
  const eventId = randomUUID();
  // A revocation ends the agent's keys: its time is after every record they signed (key-end.ts).
  const endAt = keyEndClock(requestedAt);
  let now = requestedAt;
  const step = async (append: KeyLogAppend) => {
    // A revocation's reads go out together, before the key history's sequencer runs
    // (keyLogChange runs it at the first `append`). The keys are read before the agent's visibility is known, and used
    // only once it is.
    const [agent, keys] = await Promise.all([findVisibleAgent(caller, agentId), transition === 'revoke' ? listKeys(caller.orgId, agentId) : []]);
    const refused = refusal(transition, agent.status);
    if (refused) throw conflict(refused);
    const revokeKeys = keys.filter((key) => key.status !== 'revoked');
    if (revokeKeys.length > 0) now = endAt(agent);
    const committed = await changeAgentStatus({
      orgId: caller.orgId,
      agentId,
      from: agent.status,
      to,
      now,
      keysVersion: agent.keys_version,
      revokeKeys,
      keyLog: await append(
        revokeKeys.map((key) => ({ event: 'revoke' as const, agent_id: agentId, kid: key.kid, key: key.public_key, time: now, actor: caller.userId, proof: null })),
        now,
      ),
      event: adminEventPut({
        orgId: caller.orgId,
        actor: caller.userId,
        action,
        eventId,
        targetType: 'agent',
        targetId: agentId,
        details: { reason, previous_status: agent.status, status: to, ...(transition === 'revoke' ? { revoked_kids: revokeKeys.map((k) => k.kid) } : {}) },
        now,
      }),
    });
    if (!committed) return RETRY;
    return {
      agent: agentView({ ...agent, status: to, updated_at: now }),
      previous_status: agent.status,
      ...(transition === 'revoke'
        ? { keys: keys.map((key) => keyView({ ...key, status: 'revoked', retired_at: key.retired_at ?? now })) }
        : {}),
    };
  };
  // A revocation appends its keys' revoke events to the key history; freezing and unfreezing
  // revoke no key, so they append nothing and need no turn.
  const result = transition === 'revoke' ? await keyLogChange(caller.orgId, step) : await withRetries(() => step(appendsNothing));
  await announceStatusChange(ports, { eventId, orgId: caller.orgId, agentId, previousStatus: result.previous_status, status: to, reason, at: now });
  return result;
}
