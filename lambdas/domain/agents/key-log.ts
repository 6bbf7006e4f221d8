/**
 * Key changes as key events (docs/PROTOCOL.md "Key events"): each change to an agent's keys
 * appends one event per key to the organization's key history, in the same transaction as
 * the change, so that the epoch log's next entry commits to it (docs/CHECKPOINTS.md "Key
 * history"). A registration or key addition must carry the new key's proof of possession.
 */
import { GENESIS_KEY_EVENT, chainKeyEvents, keyEventHash, possessionProblem, type KeyEventDraft, type PossessionProof } from '@agent-ledger/protocol';
import { keyLogAppendItems, readKeyLogHead } from '../../store/key-log.js';
import type { TransactItem } from '../../store/dynamo.js';
import { LedgerError } from '../../shared/errors.js';

/**
 * Refuse a new key without a valid proof of possession (VALIDATION_ERROR, naming `field`):
 * a signature by that key over (org_id, agent_id, kid, registered_at), registered_at within
 * five minutes of now (keys/possession.ts).
 */
export function assertPossession(proof: PossessionProof | undefined, key: { kid: string; public_key: string }, orgId: string, agentId: string, now: number, field: string): void {
  const problem = possessionProblem(proof, key.public_key, { org_id: orgId, agent_id: agentId, kid: key.kid }, now);
  if (problem !== null) throw new LedgerError('VALIDATION_ERROR', `${field}: ${problem} (docs/PROTOCOL.md "Proof of possession")`);
}

/** The transaction items that append `drafts` to the organization's key history as it is now. */
export async function keyEventItems(orgId: string, drafts: readonly KeyEventDraft[], now: number): Promise<TransactItem[]> {
  if (drafts.length === 0) return [];
  const head = await readKeyLogHead(orgId);
  const events = chainKeyEvents(orgId, head?.size ?? 0, head?.head ?? GENESIS_KEY_EVENT, drafts);
  return keyLogAppendItems(orgId, head?.size, events, keyEventHash(events[events.length - 1]!), now);
}
