/**
 * Key changes as key events (docs/PROTOCOL.md "Key events"): each change to an agent's keys
 * appends one event per key to the organization's key history, in the same transaction as
 * the change, so that the epoch log's next entry commits to it (docs/CHECKPOINTS.md "Key
 * history"). A new key's proof of possession, when given, must hold; a key registered without
 * one is recorded with `proof: null` (unproven), so the history says which keys were proven.
 */
import { GENESIS_KEY_EVENT, chainKeyEvents, keyEventHash, possessionProblem, type KeyEventDraft, type PossessionProof } from '@agent-ledger/protocol';
import { keyLogAppendItems, readKeyLogHead } from '../../store/key-log.js';
import type { TransactItem } from '../../store/dynamo.js';
import { LedgerError } from '../../shared/errors.js';
import { TurnQueue } from '../../shared/turns.js';
import { KEY_CHANGE_BUDGET_MS } from '../../shared/key-change-timeout.js';
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

/** The key history's head as a committed change left it: what the next change appends after. */
interface KnownHead {
  size: number;
  head: string;
}

/**
 * The transaction items appending `drafts` to the organization's key history. The first call
 * waits for the change's turn (none is needed for no drafts). A step answers a value only once
 * those items committed, and RETRY when they did not.
 */
export type KeyLogAppend = (drafts: readonly KeyEventDraft[], now: number) => Promise<TransactItem[]>;

const turns = new TurnQueue<KnownHead>();

/**
 * Runs a change that appends to the organization's key history (`step`, with retries as
 * `withRetries`). Every key change of an organization appends at its history's one head, so
 * twenty agents registered at once are twenty writers of one item, of which one wins each
 * round. To keep that from turning into refusals:
 * - within a process, an organization's appends take turns, in the order the changes were
 *   asked for (the local stack serves every request in one process; a Lambda instance serves
 *   one request at a time). A step reads its agent and keys before it appends, and those
 *   reads go out before its turn, so a turn holds little more than the commit;
 * - a change that commits hands the head it wrote to the next in line, which appends after it
 *   without reading the head again. The head's condition still guards that guess: if another
 *   process appended meanwhile, the commit fails and the step runs again on a fresh read;
 * - across processes, a change gets KEY_LOG_ATTEMPTS rounds with growing, jittered waits.
 * A change that cannot get its turn within KEY_CHANGE_BUDGET_MS is a 409 without having
 * written anything. New keys first take their member's daily quota (new-key-quota.ts), given
 * back when the change does not commit.
 *
 * @example
 * await keyLogChange(caller.orgId, async (append) => ((await commit(await append(drafts, now))) ? result : RETRY));
 */
export async function keyLogChange<T>(orgId: string, step: (append: KeyLogAppend) => Promise<T | typeof RETRY>): Promise<T> {
  const deadline = Date.now() + KEY_CHANGE_BUDGET_MS;
  const turn = turns.join(orgId);
  let myTurn = false;
  let giveBackQuota: (() => Promise<void>) | undefined;
  /** The head handed over by the change before; trusted for the first append only. */
  let handedOver: KnownHead | undefined;
  /** The head this attempt's items leave if they commit. */
  let written: KnownHead | undefined;
  const append: KeyLogAppend = async (drafts, now) => {
    if (drafts.length === 0) return [];
    if (!myTurn) {
      giveBackQuota = await takeNewKeyQuota(orgId, drafts, now);
      const ready = await turn.ready(deadline);
      if (ready === null) throw contended();
      myTurn = true;
      handedOver = ready.handedOver;
    }
    const read = handedOver ?? (await readKeyLogHead(orgId));
    handedOver = undefined;
    const events = chainKeyEvents(orgId, read?.size ?? 0, read?.head ?? GENESIS_KEY_EVENT, drafts);
    const last = events[events.length - 1]!;
    written = { size: last.key_index + 1, head: keyEventHash(last) };
    return keyLogAppendItems(orgId, read?.size, events, written.head, now);
  };
  let committed: KnownHead | undefined;
  try {
    const result = await withRetries(
      () => {
        written = undefined;
        return step(append);
      },
      KEY_LOG_ATTEMPTS,
      deadline,
    );
    committed = written;
    return result;
  } finally {
    turn.end(committed);
    if (committed === undefined) await giveBackQuota?.();
  }
}
