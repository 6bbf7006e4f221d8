/**
 * DELETE /v1/agents/:agent_id (docs/API.md §4.3): permanent. The agent, its keys and its
 * assignments go in one transaction with admin event agent.delete. Its operations stay:
 * they are evidence, and each row keeps the public key it was signed with, so verify still
 * passes after the agent is gone. The agent_id stays taken (a tombstone), so one id never
 * names two chains.
 */
import { adminEventPut } from '../../store/admin-events.js';
import { deleteAgentItems, listAssignedUsers, listKeys } from '../../store/agents.js';
import { MAX_TRANSACTION_ITEMS } from '../../store/dynamo.js';
import type { OrgCaller } from '../auth/caller.js';
import { conflict } from '../../shared/errors.js';
import { findVisibleAgent } from './find-agent.js';
import { keyEndClock } from './key-end.js';
import { keyLogChange } from './key-log.js';
import { RETRY } from './optimistic.js';

/** Agent delete, tombstone, org counter update, admin event and the key history's head. */
const FIXED_ITEMS = 5;

export async function deleteAgent(caller: OrgCaller, agentId: string, requestedAt = Date.now()): Promise<void> {
  // The deletion ends the agent's keys: its time is after every record they signed (key-end.ts).
  const endAt = keyEndClock(requestedAt);
  await keyLogChange(caller.orgId, async (append) => {
    const agent = await findVisibleAgent(caller, agentId);
    const now = endAt(agent);
    const [keys, assignedUserIds] = await Promise.all([listKeys(caller.orgId, agentId), listAssignedUsers(caller.orgId, agentId)]);
    // Each key is deleted and gets its `delete` event (docs/PROTOCOL.md "Key events").
    if (2 * keys.length + assignedUserIds.length + FIXED_ITEMS > MAX_TRANSACTION_ITEMS) {
      throw conflict('the agent has too many assignments to delete in one step; remove some assignments first');
    }
    const committed = await deleteAgentItems({
      agent,
      keys,
      assignedUserIds,
      actor: caller.userId,
      now,
      keyLog: await append(
        keys.map((key) => ({ event: 'delete' as const, agent_id: agentId, kid: key.kid, key: key.public_key, time: now, actor: caller.userId, proof: null })),
        now,
      ),
      event: adminEventPut({
        orgId: caller.orgId,
        actor: caller.userId,
        action: 'agent.delete',
        targetType: 'agent',
        targetId: agentId,
        details: { status: agent.status, seq_no: agent.seq_no, kids: keys.map((key) => key.kid), unassigned_users: assignedUserIds },
        now,
      }),
    });
    return committed ? true : RETRY;
  });
}
