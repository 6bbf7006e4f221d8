/**
 * Optimistic concurrency for agent changes: read, decide, write conditioned on what was
 * read. When the condition fails (a concurrent change, or a DynamoDB TransactionConflict
 * with an in-flight submission on the same agent item) the whole step runs again on fresh
 * state, so the decision is always made on the state the write lands on.
 */
import { conflict } from '../../shared/errors.js';

export const RETRY = Symbol('retry');

const ATTEMPTS = 5;

export async function withRetries<T>(step: () => Promise<T | typeof RETRY>): Promise<T> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const result = await step();
    if (result !== RETRY) return result;
    // Jitter so two contending writers do not collide again in lockstep.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
  }
  // Still contended: the client may retry (409), rather than an internal error.
  throw conflict(`a concurrent change to the same agent or key history won ${ATTEMPTS} times; retry the request`);
}
