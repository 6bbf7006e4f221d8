/**
 * Key lifecycle (docs/API.md §3 "Key status", and the key endpoints of the route table):
 * add a key (key.add), retire one (active → retired, key.retire; submissions then get
 * KEY_RETIRED) and revoke one (active or retired → revoked, key.revoke; irreversible).
 * retired_at is set when a key stops signing, by retirement or revocation, and a revoked
 * key keeps the earlier retirement time. It is never before an operation the key signed in
 * (key-end.ts). Past operations stay verifiable either way.
 */
import { adminEventPut, type AdminAction } from '../../store/admin-events.js';
import { changeKeyStatus, listKeys, putNewKey, readKey } from '../../store/agents.js';
import type { AgentKeyItem } from '../../store/ledger-items.js';
import type { OrgCaller } from '../auth/caller.js';
import { conflict, notFound } from '../../shared/errors.js';
import { keyView, type KeyView } from './agent-view.js';
import { findVisibleAgent } from './find-agent.js';
import { keyEndClock } from './key-end.js';
import { RETRY } from './optimistic.js';
import { assertUsableKey, newKeyItem, type NewKey } from './register-agent.js';
import { assertPossession, keyLogChange } from './key-log.js';
import { assertProofsGiven, keyProofRequired, unprovenKeysGuard } from './key-proof-policy.js';

/**
 * Keys one agent may hold over its life (revoked ones count: a kid is never reused). Keeps
 * agent revocation and deletion within one transaction (100 items).
 */
const MAX_KEYS_PER_AGENT = 20;

export async function addKey(caller: OrgCaller, agentId: string, key: NewKey, now = Date.now()): Promise<KeyView> {
  assertUsableKey(key, 'body.public_key');
  return keyLogChange(caller.orgId, async (append) => {
    const agent = await findVisibleAgent(caller, agentId);
    // After the lookup: an agent the caller cannot see is NOT_FOUND whatever the proof says.
    assertPossession(key.proof, key, caller.orgId, agentId, now, 'body.proof');
    assertProofsGiven(await keyProofRequired(caller.orgId), [key], () => 'body.proof');
    if (agent.status === 'revoked') throw conflict('the agent is revoked; it cannot get new keys');
    const keys = await listKeys(caller.orgId, agentId);
    if (keys.some((existing) => existing.kid === key.kid)) throw conflict(`kid ${key.kid} is already used by this agent`);
    if (keys.length >= MAX_KEYS_PER_AGENT) throw conflict(`an agent holds at most ${MAX_KEYS_PER_AGENT} keys, revoked ones included`);
    const item = newKeyItem(caller.orgId, agentId, key, now);
    const outcome = await putNewKey(
      item,
      adminEventPut({ orgId: caller.orgId, actor: caller.userId, action: 'key.add', targetType: 'agent_key', targetId: `${agentId}/${key.kid}`, details: { agent_id: agentId, kid: key.kid }, now }),
      [...(await append([{ event: 'add', agent_id: agentId, kid: key.kid, key: key.public_key, time: now, actor: caller.userId, proof: key.proof ?? null }], now)), ...unprovenKeysGuard(caller.orgId, [key])],
    );
    if (outcome === 'kid_taken') throw conflict(`kid ${key.kid} is already used by this agent`);
    return outcome === 'added' ? keyView(item) : RETRY;
  });
}

async function changeKey(
  caller: OrgCaller,
  agentId: string,
  kid: string,
  to: 'revoked' | 'retired',
  reason: string | undefined,
  requestedAt: number,
): Promise<KeyView> {
  const action: AdminAction = to === 'revoked' ? 'key.revoke' : 'key.retire';
  const endAt = keyEndClock(requestedAt);
  return keyLogChange(caller.orgId, async (append) => {
    const agent = await findVisibleAgent(caller, agentId);
    const key = await readKey(caller.orgId, agentId, kid);
    if (!key) throw notFound(`key ${kid} of agent ${agentId}`);
    if (key.status === 'revoked') throw conflict(`key ${kid} is already revoked`);
    if (to === 'retired' && key.status !== 'active') throw conflict(`key ${kid} is already ${key.status}`);
    const now = endAt(agent);
    const retiredAt = key.retired_at ?? now;
    const committed = await changeKeyStatus(
      key,
      to,
      { retiredAt, endsAt: now },
      adminEventPut({
        orgId: caller.orgId,
        actor: caller.userId,
        action,
        targetType: 'agent_key',
        targetId: `${agentId}/${kid}`,
        details: { agent_id: agentId, kid, previous_status: key.status, ...(reason ? { reason } : {}) },
        now,
      }),
      // A revoked key keeps its retirement as its end; the event records when it was revoked.
      await append([{ event: to === 'revoked' ? 'revoke' : 'retire', agent_id: agentId, kid, key: key.public_key, time: now, actor: caller.userId, proof: null }], now),
    );
    const changed: AgentKeyItem = { ...key, status: to, retired_at: retiredAt };
    return committed ? keyView(changed) : RETRY;
  });
}

export const revokeKey = (caller: OrgCaller, agentId: string, kid: string, reason: string, now = Date.now()) =>
  changeKey(caller, agentId, kid, 'revoked', reason, now);

export const retireKey = (caller: OrgCaller, agentId: string, kid: string, reason: string | undefined, now = Date.now()) =>
  changeKey(caller, agentId, kid, 'retired', reason, now);
