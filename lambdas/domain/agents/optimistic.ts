/**
 * Optimistic concurrency for agent changes: read, decide, write conditioned on what was
 * read. When the condition fails (a concurrent change, or a DynamoDB TransactionConflict
 * with an in-flight submission on the same agent item) the whole step runs again on fresh
 * state, so the decision is always made on the state the write lands on.
 *
 * Key changes contend more: every one of an organization appends at its key history's one
 * head (docs/PROTOCOL.md "Key events"), so twenty agents registered at once are twenty
 * writers of one item, of which one wins each round. {@link keyLogChange} keeps that from
 * turning into refusals:
 * - within a process, an organization's key changes take turns, so they never contend with
 *   each other (the local stack serves every request in one process; a Lambda instance
 *   serves one request at a time);
 * - across processes, a key change gets {@link KEY_LOG_ATTEMPTS} rounds with growing,
 *   jittered waits rather than {@link ATTEMPTS}.
 * Either way the waiting ends well inside a route's 10 s (lib/function.ts): a change still
 * contended then is a clean 409 the client can retry, never a timeout (a 500 that may or may
 * not have taken effect).
 */
import { conflict } from '../../shared/errors.js';

export const RETRY = Symbol('retry');

const ATTEMPTS = 5;

/** Rounds for a change that appends to the key history (see the module comment). */
const KEY_LOG_ATTEMPTS = 40;

/**
 * How long a change may wait for its turn and retry, from when it was asked for. Twenty key
 * changes of one organization at once, taking turns, take about 0.6 s in AWS and up to 6 s on a
 * loaded 2-core machine running the local stack (about 300 ms a change); the last attempt may
 * start just before the budget ends and still answer within the route's 10 s.
 */
const BUDGET_MS = 8_000;

const contended = () => conflict('concurrent changes to the same agent or key history won every attempt; retry the request');

export async function withRetries<T>(step: () => Promise<T | typeof RETRY>, attempts = ATTEMPTS, deadline = Date.now() + BUDGET_MS): Promise<T> {
  for (let attempt = 1; attempt <= attempts && Date.now() < deadline; attempt++) {
    const result = await step();
    if (result !== RETRY) return result;
    // Jitter so two contending writers do not collide again in lockstep; the wait grows
    // with the attempt, up to a quarter second.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(25 * attempt, 250)));
  }
  throw contended();
}

/** The tail of each organization's queue of key changes in this process. */
const keyLogTurns = new Map<string, Promise<void>>();

/** Resolves true when `previous` settles, false if `deadline` comes first. */
function waitUntil(previous: Promise<void>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))));
  return Promise.race([previous.then(() => true), late]).finally(() => clearTimeout(timer));
}

/**
 * Runs `step` (with retries, as {@link withRetries}) once every key change of `orgId` this
 * process started before it has settled: one at a time per organization, in the order they
 * were asked for; organizations do not wait for each other. A change that cannot get its
 * turn within the budget is a 409 without having written anything.
 *
 * @example
 * await keyLogChange(caller.orgId, async () => ((await commit()) ? result : RETRY));
 */
export async function keyLogChange<T>(orgId: string, step: () => Promise<T | typeof RETRY>): Promise<T> {
  const deadline = Date.now() + BUDGET_MS;
  const previous = keyLogTurns.get(orgId) ?? Promise.resolve();
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  // The next change waits for this one and, if this one gave up waiting, for the one before.
  const tail = Promise.all([previous, done]).then(() => undefined);
  keyLogTurns.set(orgId, tail);
  void tail.then(() => {
    if (keyLogTurns.get(orgId) === tail) keyLogTurns.delete(orgId);
  });
  try {
    if (!(await waitUntil(previous, deadline))) throw contended();
    return await withRetries(step, KEY_LOG_ATTEMPTS, deadline);
  } finally {
    release();
  }
}
