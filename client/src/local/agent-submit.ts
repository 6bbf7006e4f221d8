/**
 * Submits the next record of a locally configured agent: under the agent's lock, on the head
 * stored in chain.json (fetched from the service when chain.json is absent), and stores the
 * new head and the freeze status the service reveals. Shared by the hook and `agent-ledger submit`.
 * The token is the one stored for the agent's own service origin, never another's: without
 * one, nothing is sent (credentials.ts).
 */
import { isApiError } from '../sdk/errors.js';
import { LedgerClient, type OperationInput, type SigningAgent, type SubmitResult } from '../sdk/client.js';
import { credentialsFor } from './credentials.js';
import { acquireLock } from './lock.js';
import { readChain, readKey, readStatusCache, writeChain, writeStatusCache, type AgentConfig } from './agent-state.js';
import type { AgentPaths } from './paths.js';

export async function submitForAgent(paths: AgentPaths, config: AgentConfig, input: OperationInput | ((attempt: number) => OperationInput), deadline: number): Promise<SubmitResult> {
  const { token } = credentialsFor(config.url);
  const privateKey = readKey(paths);
  const client = new LedgerClient({ url: config.url, token, timeoutMs: Math.max(1, deadline - Date.now()) });
  const lock = await acquireLock(paths.lock, deadline);
  try {
    const stored = readChain(paths);
    const agent: SigningAgent = {
      orgId: config.org_id,
      agentId: config.agent_id,
      kid: config.kid,
      privateKey,
      ...(stored ? { head: { seq_no: stored.seq_no, chain_hash: stored.chain_hash } } : {}),
    };
    let result: SubmitResult;
    try {
      result = await submitWithFallback(client, agent, input, deadline);
    } catch (error) {
      if (isApiError(error, 'AGENT_FROZEN')) writeStatusCache(paths, 'frozen');
      if (isApiError(error, 'AGENT_REVOKED')) writeStatusCache(paths, 'revoked');
      // The service may have moved past the head we signed on (INTERNAL_ERROR "may or may not
      // have been recorded"); a stale chain.json heals through PREV_HASH_MISMATCH next time.
      if (agent.head && agent.head.chain_hash !== stored?.chain_hash) writeChain(paths, agent.head);
      throw error;
    }
    writeChain(paths, { ...result.head, operation_id: result.record.operation_id });
    const cached = readStatusCache(paths);
    if (cached && cached.status !== 'active') writeStatusCache(paths, 'active');
    return result;
  } finally {
    lock.release();
  }
}

/** A second attempt with the input's fallback form (e.g. a truncated payload) after PAYLOAD_TOO_LARGE. */
async function submitWithFallback(client: LedgerClient, agent: SigningAgent, input: OperationInput | ((attempt: number) => OperationInput), deadline: number) {
  const inputFor = typeof input === 'function' ? input : () => input;
  try {
    return await client.submit(agent, inputFor(0), { deadline });
  } catch (error) {
    if (typeof input !== 'function' || !isApiError(error, 'PAYLOAD_TOO_LARGE')) throw error;
    return client.submit(agent, inputFor(1), { deadline });
  }
}
