/**
 * Key changes as key events (docs/PROTOCOL.md "Key events"): each change to an agent's keys
 * appends one event per key to the organization's key history, its drafts written in the same
 * transaction as the change and chained before it answers, so that the epoch log's next entry
 * commits to them (docs/CHECKPOINTS.md "Key history"). A new key's proof of possession, when given, must hold; a key registered without
 * one is recorded with `proof: null` (unproven), so the history says which keys were proven.
 */
import { possessionProblem, type KeyEventDraft, type PossessionProof } from '@agent-ledger/protocol';
import { newPendingSk, pendingKeyEventsPut, readPendingKeyEvents } from '../../store/key-log.js';
import type { TransactItem } from '../../store/dynamo.js';
import { logger } from '../../logger.js';
import { LedgerError } from '../../shared/errors.js';
import { KEY_CHANGE_BUDGET_MS } from '../../shared/key-change-timeout.js';
import { chainPendingKeyEvents } from './key-sequencer.js';
import { takeNewKeyQuota } from './new-key-quota.js';
import { contended, withRetries, type RETRY } from './optimistic.js';

/**
 * Refuse a new key whose proof of possession is given but does not hold (VALIDATION_ERROR,
 * naming `field`): it must be a signature by that key over (org_id, agent_id, kid,
 * registered_at), registered_at within five minutes of now (keys/possession.ts). No proof at
 * all is the /v1 registration without one (docs/API.md §4.3): the key is stored unproven.
 */
export function assertPossession(proof: PossessionProof | undefined, key: { kid: string; public_key: string }, orgId: string, agentId: string, now: number, field: string): void {
  if (proof === undefined) return;
  const problem = possessionProblem(proof, key.public_key, { org_id: orgId, agent_id: agentId, kid: key.kid }, now);
  if (problem !== null) throw new LedgerError('VALIDATION_ERROR', `${field}: ${problem} (docs/PROTOCOL.md "Proof of possession")`);
}

/** Rounds for a change that appends to the key history (see {@link keyLogChange}). */
const KEY_LOG_ATTEMPTS = 40;

/**
 * The transaction item leaving `drafts` waiting in the organization's key history
 * (store/key-log.ts), none for no drafts. A step answers a value only once that item
 * committed, and RETRY when it did not.
 */
export type KeyLogAppend = (drafts: readonly KeyEventDraft[], now: number) => Promise<TransactItem[]>;

/**
 * Runs a change that appends to the organization's key history (`step`, with retries as
 * `withRetries`). Every key change of an organization ends up at its history's one head; to
 * keep a burst of them (a fleet registered at once, an incident revoking many agents) from
 * turning into a lottery for that head, a change does not append there itself:
 * - its transaction adds its drafts as a pending item of its own, which no other change writes,
 *   so key changes never contend with each other, in one process or many;
 * - once it committed, the key sequencer (key-sequencer.ts) chains it, together with every
 *   other change waiting then: one append for many changes. The change answers when its
 *   drafts are events; should the sequencer not get there in time, the next change or the
 *   sealer chains them (the sealer before it commits an epoch to the head, so every key that
 *   signed an epoch's records is in the history its log entry names);
 * - before its own commit, when an earlier change of the same agent still waits (its process
 *   stopped, or its sequencer ran out of time), it chains what is waiting first, so a change
 *   that follows another it could see (a retirement after the registration that answered)
 *   always gets the later index, whatever the clocks of their processes say. Changes of other
 *   agents need no order: no check of the key history relates two agents' events.
 * New keys first take their member's daily quota (new-key-quota.ts), given back when the
 * change does not commit. A change that cannot chain what was waiting before it within
 * KEY_CHANGE_BUDGET_MS is a 409 without having written anything.
 *
 * @example
 * await keyLogChange(caller.orgId, async (append) => ((await commit(await append(drafts, now))) ? result : RETRY));
 */
export async function keyLogChange<T>(orgId: string, step: (append: KeyLogAppend) => Promise<T | typeof RETRY>): Promise<T> {
  const deadline = Date.now() + KEY_CHANGE_BUDGET_MS;
  let giveBackQuota: (() => Promise<void>) | undefined;
  /** This change's pending item, once its first append made it. */
  let pendingSk: string | undefined;
  const append: KeyLogAppend = async (drafts, now) => {
    if (drafts.length === 0) return [];
    if (pendingSk === undefined) {
      giveBackQuota = await takeNewKeyQuota(orgId, drafts, now);
      const agentId = drafts[0]!.agent_id;
      if ((await readPendingKeyEvents(orgId, 1, agentId)).length > 0 && !(await chainPendingKeyEvents(orgId, deadline))) throw contended();
      pendingSk = newPendingSk(agentId, now);
    }
    return [pendingKeyEventsPut(orgId, pendingSk, drafts, now)];
  };
  let committed = false;
  try {
    const result = await withRetries(() => step(append), KEY_LOG_ATTEMPTS, deadline);
    committed = true;
    if (pendingSk !== undefined) await chainCommitted(orgId, deadline);
    return result;
  } finally {
    if (!committed) await giveBackQuota?.();
  }
}

/**
 * Chains a committed change's drafts. The change took effect whatever happens here: a
 * sequencer that fails (a table error, the deadline) leaves the drafts waiting for the next
 * change of the agent or the sealer, and the change still answers success.
 */
async function chainCommitted(orgId: string, deadline: number): Promise<void> {
  try {
    if (!(await chainPendingKeyEvents(orgId, deadline))) logger.warn('key history not chained before the answer; the next change or the sealer chains it', { org_id: orgId });
  } catch (error) {
    logger.warn('key history not chained before the answer; the next change or the sealer chains it', { org_id: orgId, error });
  }
}
