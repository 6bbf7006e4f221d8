/**
 * The submission rules of docs/API.md §4.5 that need no write, as pure functions, one per step
 * of docs/PROTOCOL.md "Submission check order" (steps 2-6; step 1 is the route's schema and the
 * org check, steps 7-8 the atomic commit). submit-operation.ts calls them in that order, so
 * when several rules fail the first in the list wins.
 */
import { verifyRecordSignature } from '@agent-ledger/protocol';
import type { AgentItem, AgentKeyItem } from '../../store/ledger-items.js';
import { LedgerError } from '../../shared/errors.js';
import type { PreparedRecord } from './prepared-record.js';

/** docs/PROTOCOL.md step 6: issued_at more than this far ahead of the server clock is VALIDATION_ERROR. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

/** Step 2: the agent exists (and the caller may see it), then AGENT_REVOKED, then AGENT_FROZEN. */
export function checkAgent(agent: AgentItem | null, visible: boolean, agentId: string): asserts agent is AgentItem {
  if (!agent || !visible) throw new LedgerError('UNKNOWN_AGENT', `agent ${agentId} is not registered in this organization`);
  if (agent.status === 'revoked') throw new LedgerError('AGENT_REVOKED', `agent ${agentId} is revoked`);
  if (agent.status === 'frozen') throw new LedgerError('AGENT_FROZEN', `agent ${agentId} is frozen`);
}

/** Step 3: an unknown kid is INVALID_SIGNATURE (nothing to verify with); then KEY_REVOKED, KEY_RETIRED. */
export function checkKey(key: AgentKeyItem | null, kid: string): asserts key is AgentKeyItem {
  if (!key) throw new LedgerError('INVALID_SIGNATURE', `agent_pubkey_kid ${kid} names no key of this agent`);
  if (key.status === 'revoked') throw new LedgerError('KEY_REVOKED', `key ${kid} is revoked`);
  if (key.status === 'retired') throw new LedgerError('KEY_RETIRED', `key ${kid} is retired`);
}

/** Step 4: the canonical payload (JCS bytes) over LEDGER_MAX_PAYLOAD_BYTES. */
export function checkPayloadSize(prepared: PreparedRecord, maxBytes: number): void {
  if (prepared.payloadBytes.byteLength > maxBytes) {
    throw new LedgerError('PAYLOAD_TOO_LARGE', `canonical payload is ${prepared.payloadBytes.byteLength} bytes; the limit is ${maxBytes}`);
  }
}

/** Step 5: payload_hash = b64u(H(JCS(payload))), and the Ed25519 signature over the signing input. */
export function checkIntegrity(prepared: PreparedRecord, key: AgentKeyItem): void {
  if (prepared.payloadDigest !== prepared.record.payload_hash) {
    throw new LedgerError('INVALID_SIGNATURE', 'payload_hash does not match the canonical payload');
  }
  // verify parses the key through publicKeyFromRaw's cache (one native verify per request)
  // and answers false, never throws, for a key docs/PROTOCOL.md refuses, such as a small-order
  // key stored before registration checked for them.
  if (!verifyRecordSignature(prepared.record, key.public_key)) {
    throw new LedgerError('INVALID_SIGNATURE', 'signature does not verify with the named key');
  }
}

/** Step 6: TTL_EXPIRED when issued_at + ttl_ms < server time; VALIDATION_ERROR when issued_at is > 5 min ahead. */
export function checkFreshness(prepared: PreparedRecord, now: number): void {
  const { issued_at: issuedAt, ttl_ms: ttlMs } = prepared.record;
  if (issuedAt + ttlMs < now) throw new LedgerError('TTL_EXPIRED', `the record expired at ${issuedAt + ttlMs}; server time ${now}`);
  if (issuedAt > now + MAX_CLOCK_SKEW_MS) {
    throw new LedgerError('VALIDATION_ERROR', `issued_at is more than ${MAX_CLOCK_SKEW_MS / 60000} minutes ahead of server time ${now}`);
  }
}
