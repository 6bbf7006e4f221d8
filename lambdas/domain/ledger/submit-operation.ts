/**
 * POST /v1/operations (SPEC.md §4.5): every submission rule, in PROTOCOL.md "Submission
 * check order", then the atomic commit and the receipt.
 *
 *   1. shape (route schema), org_id = caller's org (FORBIDDEN), canonical form
 *   2-3. agent and key, in one strongly consistent BatchGetItem
 *   4-6. payload size, payload hash + signature, freshness (pure, record-checks.ts)
 *   7-8. nonce and chain head: the three-item transaction (operation-store.ts). When the head
 *        read already differs from prev_chain_hash, the answer is known without writing
 *        anything: REPLAY_DETECTED if the nonce was used, else PREV_HASH_MISMATCH.
 * The payload object is in S3 *before* the transaction (DESIGN.md: an orphan object is
 * harmless, a committed row without its payload is not), and only once the record passed
 * every check up to the transaction (agent, key, size, signature, freshness, chain head): a
 * write started earlier let refused submissions fill the bucket (120 refused submissions
 * left 30 MB). That costs the hot path one S3 round trip before the commit. The object is
 * named by the hash of its own bytes, and is written at most once per request whatever the
 * rounds. The receipt is completed after the commit (receipt-completion.ts).
 *
 * Failure behaviour (ledger issue, item 4): an infrastructure failure before or in the
 * transaction records nothing and answers INTERNAL_ERROR; one after it answers
 * INTERNAL_ERROR too, but the operation is committed and GET or verify completes its receipt.
 */
import type { OperationRecord, Receipt } from '@agent-ledger/protocol';
import { readAgentAndKey } from '../../adapters/aws/agent-store.js';
import { putJsonObject } from '../../adapters/aws/object-store.js';
import { commitOperation, nonceUsed, type CommitResult, type ExpectedHead } from '../../adapters/aws/operation-store.js';
import { objectKeys, type AgentItem } from '../../adapters/aws/ledger-items.js';
import { config } from '../../config.js';
import { canSeeAgent } from '../access/agent-visibility.js';
import type { OrgCaller } from '../auth/caller.js';
import { conflict, LedgerError } from '../errors.js';
import { buildRow } from './operation-row.js';
import { prepareRecord, type PreparedRecord } from './prepared-record.js';
import { completeReceipt } from './receipt-completion.js';
import { checkAgent, checkFreshness, checkIntegrity, checkKey, checkPayloadSize } from './record-checks.js';
import { uuidv7 } from './uuidv7.js';

/**
 * Rounds of read-check-commit. A round repeats only when the commit met a concurrent change
 * that does not decide the outcome by itself: a key change (keys_version) or a
 * TransactionConflict. Each repeat re-reads, so its answer reflects the new state.
 */
const MAX_ROUNDS = 4;

/** What a cancelled commit means (SPEC.md §7, PROTOCOL.md order), or 'again' to re-read and retry. */
export function interpretCancellation(result: Exclude<CommitResult, { committed: true }>, expected: ExpectedHead, agentId: string): LedgerError | 'again' {
  if (result.headFailed) {
    const agent = result.agent;
    // Rule 2 outranks everything the transaction checks: the agent vanished, was revoked or frozen meanwhile.
    if (!agent) return new LedgerError('UNKNOWN_AGENT', `agent ${agentId} is not registered in this organization`);
    if (agent.status === 'revoked') return new LedgerError('AGENT_REVOKED', `agent ${agentId} is revoked`);
    if (agent.status === 'frozen') return new LedgerError('AGENT_FROZEN', `agent ${agentId} is frozen`);
    // A key changed: re-run from step 2 so rule 3 sees it.
    if (agent.keysVersion !== expected.keysVersion) return 'again';
  }
  if (result.nonceUsed) return replay();
  // The head moved (or a concurrent transaction collided): the next round reads the new head
  // and answers PREV_HASH_MISMATCH, or REPLAY_DETECTED if the nonce went with it.
  if (result.headFailed || result.conflict) return 'again';
  if (result.operationExists) return conflict('operation_id is already used by another operation of this organization');
  return 'again';
}

const replay = () => new LedgerError('REPLAY_DETECTED', 'nonce already used by this agent');

async function readState(caller: OrgCaller, record: OperationRecord) {
  const [[agent, key], visible] = await Promise.all([
    readAgentAndKey(caller.orgId, record.agent_id, record.agent_pubkey_kid),
    canSeeAgent(caller, record.agent_id),
  ]);
  return [agent, key, visible] as const;
}

/** Steps 7-8 when the head read already differs from prev_chain_hash: decided by one nonce read, nothing written. */
async function staleHeadError(record: OperationRecord, agent: AgentItem): Promise<LedgerError> {
  if (await nonceUsed(agent.org_id, agent.agent_id, record.nonce)) return replay();
  return new LedgerError('PREV_HASH_MISMATCH', `prev_chain_hash does not match the agent's chain head (seq_no ${agent.seq_no})`);
}

export async function submitOperation(caller: OrgCaller, record: OperationRecord): Promise<Receipt> {
  // PROTOCOL.md: server_received_at is when the request was accepted for processing.
  const receivedAt = Date.now();
  // Step 1: the shape (the route's schema, then canonical form), then the organization.
  const prepared: PreparedRecord = prepareRecord(record);
  if (record.org_id !== caller.orgId) throw new LedgerError('FORBIDDEN', "org_id is not the caller's organization");
  const receiptId = uuidv7(receivedAt);
  const maxPayloadBytes = config().maxPayloadBytes;
  let payloadWrite: Promise<void> | undefined;

  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const [agent, key, visible] = await readState(caller, record);
    checkAgent(agent, visible, record.agent_id);
    checkKey(key, record.agent_pubkey_kid);
    if (round === 1) {
      // A kid's public key never changes (kids are never reused), so these hold for every round.
      checkPayloadSize(prepared, maxPayloadBytes);
      checkIntegrity(prepared, key);
      checkFreshness(prepared, receivedAt);
    }
    if (agent.chain_hash !== record.prev_chain_hash) throw await staleHeadError(record, agent);

    const row = buildRow(prepared, { agent, key, receiptId, receivedAt });
    // Every check up to the transaction passed: only now may the payload take up storage.
    await (payloadWrite ??= writePayload(prepared));
    const expected: ExpectedHead = { seqNo: agent.seq_no, chainHash: agent.chain_hash, keysVersion: agent.keys_version };
    const result = await commitOperation(row, expected);
    if (result.committed) return (await completeReceipt(row)).receipt;
    const outcome = interpretCancellation(result, expected, record.agent_id);
    if (outcome !== 'again') throw outcome;
  }
  throw new Error(`submission of ${record.operation_id} still contended after ${MAX_ROUNDS} rounds; nothing was recorded`);
}

/** Writes the payload object (see the module comment), named by the hash of its bytes. */
function writePayload(prepared: PreparedRecord): Promise<void> {
  const { org_id: orgId, operation_id: operationId } = prepared.record;
  return putJsonObject(objectKeys.payload(orgId, operationId, prepared.payloadDigest), prepared.payloadBytes);
}
