/**
 * Optimistic concurrency for agent changes: read, decide, write conditioned on what was
 * read. When the condition fails (a concurrent change, or a DynamoDB TransactionConflict
 * with an in-flight submission on the same agent item) the whole step runs again on fresh
 * state, so the decision is always made on the state the write lands on.
 *
 * Key changes contend more: every one of an organization appends at its key history's one
 * head (docs/PROTOCOL.md "Key events"), so twenty agents registered at once are twenty
 * writers of one item, of which one wins each round. Two things keep that from turning
 * into refusals:
 * - within a process, an organization's key changes take turns ({@link inKeyLogTurn}), so
 *   they never contend with each other (the local stack serves every request in one
 *   process; a Lambda instance serves one request at a time);
 * - across processes, a key change gets {@link KEY_LOG_ATTEMPTS} rounds with growing,
 *   jittered waits rather than {@link ATTEMPTS}.
 */
import { conflict } from '../../shared/errors.js';

export const RETRY = Symbol('retry');

const ATTEMPTS = 5;

/** Rounds for a change that appends to the key history (see the module comment). */
export const KEY_LOG_ATTEMPTS = 40;

/**
 * How long a change keeps retrying: well inside a route's 10 s (lib/function.ts), so that a
 * change still contended is a clean 409 the client can retry, never a timeout (a 500 that
 * may or may not have taken effect).
 */
const RETRY_BUDGET_MS = 5_000;

export async function withRetries<T>(step: () => Promise<T | typeof RETRY>, attempts = ATTEMPTS): Promise<T> {
  const deadline = Date.now() + RETRY_BUDGET_MS;
  for (let attempt = 1; attempt <= attempts && Date.now() < deadline; attempt++) {
    const result = await step();
    if (result !== RETRY) return result;
    // Jitter so two contending writers do not collide again in lockstep; the wait grows
    // with the attempt, up to a quarter second.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(25 * attempt, 250)));
  }
  // Still contended: the client may retry (409), rather than an internal error.
  throw conflict('concurrent changes to the same agent or key history won every attempt; retry the request');
}

/** The tail of each organization's queue of key changes in this process. */
const keyLogTurns = new Map<string, Promise<unknown>>();

/**
 * Runs `change` once every key change of `orgId` this process started before it has
 * settled (one at a time per organization; organizations do not wait for each other).
 *
 * @example
 * await inKeyLogTurn(orgId, () => withRetries(step, KEY_LOG_ATTEMPTS));
 */
export function inKeyLogTurn<T>(orgId: string, change: () => Promise<T>): Promise<T> {
  const mine = (keyLogTurns.get(orgId) ?? Promise.resolve()).then(change);
  const settled = mine.then(
    () => undefined,
    () => undefined,
  );
  keyLogTurns.set(orgId, settled);
  void settled.then(() => {
    if (keyLogTurns.get(orgId) === settled) keyLogTurns.delete(orgId);
  });
  return mine;
}
