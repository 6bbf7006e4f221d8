/**
 * Optimistic concurrency for agent changes: read, decide, write conditioned on what was
 * read. When the condition fails (a concurrent change, or a DynamoDB TransactionConflict
 * with an in-flight submission on the same agent item) the whole step runs again on fresh
 * state, so the decision is always made on the state the write lands on.
 *
 * Key changes also wait for the key history's sequencer (key-log.ts `keyLogChange`). Either way
 * the waiting ends well inside the route's timeout (lib/function.ts): a change still contended
 * then is a clean 409 the client can retry, never a timeout (a 500 that may or may not have
 * taken effect).
 */
import { conflict } from '../../shared/errors.js';

export const RETRY = Symbol('retry');

const ATTEMPTS = 5;

/**
 * How long a change may retry, from when it was asked for. The last attempt may start just
 * before the budget ends and still answer within the route's 10 s.
 */
const RETRY_BUDGET_MS = 8_000;

export const contended = () => conflict('concurrent changes to the same agent or key history won every attempt; retry the request');

export async function withRetries<T>(step: () => Promise<T | typeof RETRY>, attempts = ATTEMPTS, deadline = Date.now() + RETRY_BUDGET_MS): Promise<T> {
  for (let attempt = 1; attempt <= attempts && Date.now() < deadline; attempt++) {
    const result = await step();
    if (result !== RETRY) return result;
    // Jitter so two contending writers do not collide again in lockstep; the wait grows
    // with the attempt, up to a quarter second.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(25 * attempt, 250)));
  }
  throw contended();
}
