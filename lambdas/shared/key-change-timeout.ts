/**
 * How long a change to an organization's keys may take. Such a change waits for the key
 * sequencer to chain what waited before it and then its own drafts, behind every other
 * change of the organization waiting at the key history's one head
 * (lambdas/domain/agents/key-log.ts, docs/COST.md "Key changes").
 */

/** The timeout of a route that changes keys: the longest an HTTP API integration allows (lib/api.ts). */
export const KEY_CHANGE_TIMEOUT_SECONDS = 29;

/** How long a key change may wait for the sequencer and retry: the route's timeout less 4 s for the last attempt. */
export const KEY_CHANGE_BUDGET_MS = (KEY_CHANGE_TIMEOUT_SECONDS - 4) * 1000;
