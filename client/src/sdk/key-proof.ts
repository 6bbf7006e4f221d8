/**
 * A new agent key as POST /v1/agents/register and POST /v1/agents/{agent_id}/keys take it:
 * its public half with the proof of possession the service requires (docs/PROTOCOL.md "Proof
 * of possession"), signed with the private half, which never leaves this machine.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { provePossession, type PossessionProof } from '@agent-ledger/protocol/core';

export interface NewAgentKey {
  kid: string;
  public_key: string;
  algorithm: 'ed25519';
  proof: PossessionProof;
}

/**
 * @example
 * const key = newAgentKey(privateKey, { orgId: me.user.org_id, agentId: 'build-bot', kid: 'build-bot-k1' });
 * await client.registerAgent({ agent_id: 'build-bot', integration_type: 'sdk', keys: [key] });
 */
export function newAgentKey(privateKey: KeyObject, who: { orgId: string; agentId: string; kid: string }, registeredAt = Date.now()): NewAgentKey {
  const publicKey = createPublicKey(privateKey).export({ format: 'jwk' }).x as string;
  const proof = provePossession(privateKey, { org_id: who.orgId, agent_id: who.agentId, kid: who.kid, registered_at: registeredAt });
  return { kid: who.kid, public_key: publicKey, algorithm: 'ed25519', proof };
}
