/**
 * How long a change to an organization's keys may take. Such a change may wait for the turns
 * of many others at the key history's one head (lambdas/domain/agents/key-log.ts): twenty at
 * once take about 1 s on the local stack, and over 8 s on a 2-core machine running a test
 * suite beside it.
 */

/** The timeout of a route that changes keys: the longest an HTTP API integration allows (lib/api.ts). */
export const KEY_CHANGE_TIMEOUT_SECONDS = 29;

/** How long a key change may wait for its turn and retry: the route's timeout less 4 s for the last attempt. */
export const KEY_CHANGE_BUDGET_MS = (KEY_CHANGE_TIMEOUT_SECONDS - 4) * 1000;
