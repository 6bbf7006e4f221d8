/**
 * How long a change to an organization's keys may take. Such a change waits for the key
 * sequencer to chain what waited before it and then its own drafts, behind every other
 * change of the organization waiting at the key history's one head
 * (lambdas/domain/agents/key-log.ts), so how long grows with the burst and with how loaded the
 * machine is, not with the change itself: the routes that change keys get the longest timeout
 * there is rather than the others' 10 s (docs/API.md "Key changes at once"; docs/COST.md "Key
 * changes: one head per organization", and test/e2e/agent-key-history.test.ts runs a burst).
 */

/** The timeout of a route that changes keys: the longest an HTTP API integration allows (lib/api.ts). */
export const KEY_CHANGE_TIMEOUT_SECONDS = 29;

/** How long a key change may wait for the sequencer and retry: the route's timeout less 4 s for the last attempt. */
export const KEY_CHANGE_BUDGET_MS = (KEY_CHANGE_TIMEOUT_SECONDS - 4) * 1000;
