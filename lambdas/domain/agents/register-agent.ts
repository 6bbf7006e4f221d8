/**
 * POST /v1/agents/register (docs/API.md §4.3): the agent (status active, chain at GENESIS) and
 * its keys, with admin event agent.register, in one transaction. agent_id is unique per
 * organization, including ids of deleted agents (VALIDATION_ERROR 409).
 */
import { GENESIS, ProtocolError, assertValidPublicKey, publicKeyFromRaw, type PossessionProof } from '@agent-ledger/protocol';
import { adminEventPut } from '../../store/admin-events.js';
import { putNewAgent } from '../../store/agents.js';
import type { AgentItem, AgentKeyItem } from '../../store/ledger-items.js';
import type { OrgCaller } from '../auth/caller.js';
import { conflict, LedgerError } from '../../shared/errors.js';
import { agentView, keyView, type AgentView, type KeyView } from './agent-view.js';
import { assertPossession, keyLogChange } from './key-log.js';
import { assertProofsGiven, keyProofRequired, unprovenKeysGuard } from './key-proof-policy.js';
import { RETRY } from './optimistic.js';

export interface NewKey {
  kid: string;
  public_key: string;
  algorithm: 'ed25519';
  /** the key's signature over (org_id, agent_id, kid, registered_at): docs/PROTOCOL.md "Proof of possession"; absent: unproven */
  proof?: PossessionProof | undefined;
}

interface RegisterAgentInput {
  agent_id: string;
  display_name?: string | undefined;
  responsible_entity?: string | undefined;
  integration_type: AgentItem['integration_type'];
  keys: NewKey[];
}

/**
 * The schema checked 32 bytes of strict base64url; this checks the key is one docs/PROTOCOL.md
 * (Notation) allows: a canonical encoding of a point not of small order (a small-order key
 * would let anyone forge this agent's records). Then it warms the KeyObject cache that
 * verification on submission reads.
 */
export function assertUsableKey(key: NewKey, field: string): void {
  try {
    assertValidPublicKey(key.public_key);
    publicKeyFromRaw(key.public_key);
  } catch (error) {
    if (error instanceof ProtocolError) throw new LedgerError('VALIDATION_ERROR', `${field}: ${error.message}`);
    throw error;
  }
}

export function newKeyItem(orgId: string, agentId: string, key: NewKey, now: number): AgentKeyItem {
  return {
    kid: key.kid,
    agent_id: agentId,
    org_id: orgId,
    public_key: key.public_key,
    algorithm: 'ed25519',
    status: 'active',
    created_at: now,
    retired_at: null,
    // assertPossession has refused a proof that does not hold, so a proof here is a proven key.
    possession_proven: key.proof !== undefined,
  };
}

export async function registerAgent(
  caller: OrgCaller,
  input: RegisterAgentInput,
  now = Date.now(),
): Promise<{ agent: AgentView; keys: KeyView[] }> {
  input.keys.forEach((key, index) => {
    assertUsableKey(key, `body.keys[${index}].public_key`);
    assertPossession(key.proof, key, caller.orgId, input.agent_id, now, `body.keys[${index}].proof`);
  });
  const agent: AgentItem = {
    agent_id: input.agent_id,
    org_id: caller.orgId,
    display_name: input.display_name ?? input.agent_id,
    responsible_entity: input.responsible_entity ?? null,
    integration_type: input.integration_type,
    status: 'active',
    created_at: now,
    updated_at: now,
    seq_no: 0,
    chain_hash: GENESIS,
    head_operation_id: null,
    keys_version: 0,
    // The sealing fence starts at registration: no operation of this agent can have been
    // accepted before it, so windows sealed before now are closed to it (docs/STORAGE.md).
    sealed_until: now,
  };
  const keys = input.keys.map((key) => newKeyItem(caller.orgId, input.agent_id, key, now));
  const event = adminEventPut({
    orgId: caller.orgId,
    actor: caller.userId,
    action: 'agent.register',
    targetType: 'agent',
    targetId: input.agent_id,
    details: { integration_type: input.integration_type, kids: keys.map((key) => key.kid) },
    now,
  });
  const drafts = input.keys.map((key) => ({ event: 'register' as const, agent_id: input.agent_id, kid: key.kid, key: key.public_key, time: now, actor: caller.userId, proof: key.proof ?? null }));
  await keyLogChange(caller.orgId, async (append) => {
    // Read on every attempt: a retry after the setting changed sees the change.
    assertProofsGiven(await keyProofRequired(caller.orgId), input.keys, (index) => `body.keys[${index}].proof`);
    const outcome = await putNewAgent(agent, keys, event, [...(await append(drafts, now)), ...unprovenKeysGuard(caller.orgId, input.keys)]);
    if (outcome === 'exists') throw conflict(`agent ${input.agent_id} is already registered`);
    if (outcome === 'deleted') throw conflict(`agent_id ${input.agent_id} belonged to a deleted agent and cannot be reused`);
    // Another key change took the key history's next index meanwhile (or require_key_proof was switched on).
    return outcome === 'key_log_moved' ? RETRY : outcome;
  });
  return { agent: agentView(agent), keys: keys.map(keyView) };
}
