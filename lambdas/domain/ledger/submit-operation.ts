/**
 * POST /v1/operations (docs/API.md §4.5): every submission rule, in docs/PROTOCOL.md "Submission
 * check order", then the signed receipt and the atomic commit.
 *
 *   1. shape (route schema), org_id = caller's org (FORBIDDEN), canonical form
 *   2-3. agent and key (submission-state.ts: one strongly consistent read on a warm process)
 *   4-6. payload size, payload hash + signature, freshness (pure, record-checks.ts)
 *   (a refusal for the agent's standing keeps the signed attempt: refused-attempts.ts)
 *   7-8. nonce and chain head: the three-item transaction (store/operations.ts). When the head
 *        read already differs from prev_chain_hash, the answer is known without writing
 *        anything: REPLAY_DETECTED if the nonce was used, else PREV_HASH_MISMATCH.
 *
 * In AWS terms the path is one read round trip, one KMS Sign and one transaction, in sequence
 * (docs/COST.md, Hot path):
 * - The receipt is signed *before* the transaction: every member of it is fixed once the row
 *   is built (receipt-builder.ts), and it is committed with the row. A failed or lost commit
 *   discards it, so a signer failure (or KMS throttling, RATE_LIMITED) can never leave a
 *   committed operation without its receipt.
 * - The operation.accepted event is the committed row itself (the transactional outbox): the
 *   table's stream carries it to the events queue (lambdas/workers/forward-events.ts) under
 *   the event id the receipt names as queue_message_id. Nothing runs after the commit.
 * - A payload over LEDGER_INLINE_PAYLOAD_BYTES goes to the data bucket in parallel with the
 *   signature, only once the record passed every check up to the transaction (a write started
 *   earlier let refused submissions fill the bucket), and before the commit (docs/ARCHITECTURE.md: an
 *   orphan object is harmless, a committed row without its payload is not). Smaller payloads
 *   are kept in the row.
 *
 * Sealed windows (docs/PROTOCOL.md, Merkle epochs; docs/STORAGE.md): an agent's `sealed_until`
 * fence, which the sealer raises before it reads a window, is part of the commit's
 * condition. A submission whose created_at would fall before the fence (it arrived before the
 * window was sealed and stalled past the grace period) is not lost: it is accepted for
 * processing again, at the current time, and so lands in the open window.
 */
import { randomUUID } from 'node:crypto';
import type { OperationRecord, Receipt } from '@agent-ledger/protocol';
import { putJsonObject } from '../../store/objects.js';
import { commitOperation, latestCreatedAt, nonceUsed, type CommitResult, type ExpectedHead } from '../../store/operations.js';
import { objectKeys, type AgentItem, type OperationItem } from '../../store/ledger-items.js';
import { config } from '../../config.js';
import type { OrgCaller } from '../auth/caller.js';
import { conflict, LedgerError } from '../../shared/errors.js';
import { windowStart } from '../epochs/window.js';
import { SignerBusyError, SignerUnavailableError, type Ports } from '../ports.js';
import { rateLimited } from '../rate-limit/fixed-window.js';
import { buildRow } from './operation-row.js';
import { prepareRecord, type PreparedRecord } from './prepared-record.js';
import { keepRefusedAttempt } from './refused-attempts.js';
import { signReceipt, withReceipt } from './receipt-builder.js';
import { checkAgent, checkFreshness, checkIntegrity, checkKey, checkPayloadSize } from './record-checks.js';
import { readSubmissionState, rememberHead } from './submission-state.js';
import { uuidv7 } from './uuidv7.js';

/**
 * Rounds of read-check-sign-commit. A round repeats only when the commit met a concurrent
 * change that does not decide the outcome by itself: a key change (keys_version), the sealing
 * fence, or a TransactionConflict. Each repeat re-reads, so its answer reflects the new state.
 */
const MAX_ROUNDS = 4;

/** What a cancelled commit means (docs/API.md §7, docs/PROTOCOL.md order), 'again' to re-read and retry, or 'restamp' (a sealed window). */
export function interpretCancellation(
  result: Exclude<CommitResult, { committed: true }>,
  expected: ExpectedHead,
  agentId: string,
  createdAt: number,
): LedgerError | 'again' | 'restamp' {
  if (result.headFailed) {
    const agent = result.agent;
    // Rule 2 outranks everything the transaction checks: the agent vanished, was revoked or frozen meanwhile.
    if (!agent) return new LedgerError('UNKNOWN_AGENT', `agent ${agentId} is not registered in this organization`);
    if (agent.status === 'revoked') return new LedgerError('AGENT_REVOKED', `agent ${agentId} is revoked`);
    if (agent.status === 'frozen') return new LedgerError('AGENT_FROZEN', `agent ${agentId} is frozen`);
    // A key changed: re-run from step 2 so rule 3 sees it.
    if (agent.keysVersion !== expected.keysVersion) return 'again';
    // The head is where we read it, but the sealer fenced the window meanwhile.
    if (agent.chainHash === expected.chainHash && agent.sealedUntil !== undefined && agent.sealedUntil > createdAt) return 'restamp';
  }
  if (result.nonceUsed) return replay();
  // The head moved (or a concurrent transaction collided): the next round reads the new head
  // and answers PREV_HASH_MISMATCH, or REPLAY_DETECTED if the nonce went with it.
  if (result.headFailed || result.conflict) return 'again';
  if (result.operationExists) return conflict('operation_id is already used by another operation of this organization');
  return 'again';
}

const replay = () => new LedgerError('REPLAY_DETECTED', 'nonce already used by this agent');

/** Steps 7-8 when the head read already differs from prev_chain_hash: decided by one nonce read, nothing written. */
async function staleHeadError(record: OperationRecord, agent: AgentItem): Promise<LedgerError> {
  if (await nonceUsed(agent.org_id, agent.agent_id, record.nonce)) return replay();
  return new LedgerError('PREV_HASH_MISMATCH', `prev_chain_hash does not match the agent's chain head (seq_no ${agent.seq_no})`);
}

/**
 * The receipt signature; a throttled signer is RATE_LIMITED and a signer without its key
 * SERVICE_UNAVAILABLE (docs/API.md §7), with nothing written either way.
 */
async function sign(ports: Pick<Ports, 'signer'>, row: OperationItem): Promise<Receipt> {
  try {
    return await signReceipt(ports.signer, row);
  } catch (error) {
    if (error instanceof SignerBusyError) throw rateLimited('receipt signing is at capacity', 1);
    if (error instanceof SignerUnavailableError) {
      throw new LedgerError('SERVICE_UNAVAILABLE', 'receipt signing is unavailable; nothing was recorded, submit again later', { headers: { 'retry-after': '5' }, cause: error });
    }
    throw error;
  }
}

/** A new moment of acceptance for a submission the fence refused: now, and never before the fence. */
function restamped(fence: number): number {
  return Math.max(Date.now(), fence);
}

export async function submitOperation(ports: Pick<Ports, 'signer'>, caller: OrgCaller, record: OperationRecord): Promise<Receipt> {
  // docs/PROTOCOL.md: server_received_at is when the request was accepted for processing.
  let receivedAt = Date.now();
  // Step 1: the shape (the route's schema, then canonical form), then the organization.
  const prepared: PreparedRecord = prepareRecord(record);
  if (record.org_id !== caller.orgId) throw new LedgerError('FORBIDDEN', "org_id is not the caller's organization");
  const receiptId = uuidv7(receivedAt);
  // The operation.accepted event's id, and so the receipt's queue_message_id (docs/EVENTS.md).
  const queueMessageId = randomUUID();
  const { maxPayloadBytes, inlinePayloadBytes, epochMs } = config();
  const inlinePayload = prepared.payloadBytes.byteLength <= inlinePayloadBytes;
  let payloadWrite: Promise<void> | undefined;

  // A payload that goes to the store is written before the commit, so its checks run on the
  // agent as stored (one read), never on this process's cached head: a frozen agent's
  // submission must not take up storage (refused submissions write nothing).
  let fresh = !inlinePayload;
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const state = await readSubmissionState(caller, record.agent_id, record.agent_pubkey_kid, { prevChainHash: record.prev_chain_hash, fresh });
    const { agent, key } = state;
    try {
      checkAgent(agent, state.visible, record.agent_id);
      checkKey(key, record.agent_pubkey_kid);
      // A kid's public key never changes (kids are never reused), so these hold for every round.
      checkPayloadSize(prepared, maxPayloadBytes);
      checkIntegrity(prepared, key);
      checkFreshness(prepared, receivedAt);
    } catch (refusal) {
      // A refusal is answered on fresh state only (docs/PROTOCOL.md check order): the cached head
      // may be behind a status or key change that outranks it. A final refusal for the agent's
      // standing keeps the attempt (refused-attempts.ts), the answer unchanged.
      if (state.fresh) {
        await keepRefusedAttempt(prepared, state, refusal, receivedAt);
        throw refusal;
      }
      fresh = true;
      round -= 1;
      continue;
    }
    if (agent.chain_hash !== record.prev_chain_hash) throw await staleHeadError(record, agent);
    if (agent.sealed_until !== undefined && agent.sealed_until > receivedAt) {
      receivedAt = restamped(agent.sealed_until);
      checkFreshness(prepared, receivedAt);
    }

    const row = buildRow(prepared, { agent, key, receiptId, receivedAt, queueMessageId, inlinePayload });
    // Every check up to the transaction passed: only now may the payload take up storage.
    const [receipt] = await Promise.all([sign(ports, row), inlinePayload ? undefined : (payloadWrite ??= writePayload(prepared))]);
    const expected: ExpectedHead = {
      seqNo: agent.seq_no,
      chainHash: agent.chain_hash,
      keysVersion: agent.keys_version,
      activeWindow: windowStart(receivedAt, epochMs),
      ...(agent.latest_created_at === undefined ? {} : { latestCreatedAt: agent.latest_created_at }),
    };
    const result = await commitOperation(withReceipt(row, receipt), expected);
    if (result.committed) {
      rememberHead(agent.org_id, agent.agent_id, {
        ...agent,
        seq_no: row.seq_no,
        chain_hash: row.chain_hash,
        head_operation_id: row.operation_id,
        latest_created_at: latestCreatedAt(agent.latest_created_at, row.created_at),
      });
      return receipt;
    }
    rememberHead(agent.org_id, agent.agent_id, null);
    fresh = true;
    const outcome = interpretCancellation(result, expected, record.agent_id, receivedAt);
    if (outcome === 'restamp') {
      receivedAt = restamped(result.agent?.sealedUntil ?? receivedAt);
      checkFreshness(prepared, receivedAt);
      continue;
    }
    if (outcome !== 'again') {
      // A freeze or revocation that won the race against this commit is a final refusal too.
      await keepRefusedAttempt(prepared, state, outcome, receivedAt);
      throw outcome;
    }
  }
  // Known not to be committed (every round's transaction was cancelled), so not the 500 whose
  // outcome is unknown (docs/API.md §7): the client submits the same record again.
  throw new LedgerError('SERVICE_UNAVAILABLE', `the agent's chain head was contended for ${MAX_ROUNDS} rounds; nothing was recorded, submit again`, {
    headers: { 'retry-after': '1' },
  });
}

/** Writes the payload object (see the module comment), named by the hash of its bytes. */
function writePayload(prepared: PreparedRecord): Promise<void> {
  const { org_id: orgId, operation_id: operationId } = prepared.record;
  return putJsonObject(objectKeys.payload(orgId, operationId, prepared.payloadDigest), prepared.payloadBytes);
}
