/** Activity statistics (docs/API.md §4.11): the numbers behind the console's charts. */
import { AUDITORS } from '../../shared/roles.js';
import { route } from '../route-spec.js';
import { activityQuery, activityResponse } from '../schemas/stats.js';

export const statsRoutes = {
  activityStats: route({
    id: 'ActivityStats',
    method: 'GET',
    path: '/v1/stats/activity',
    handler: 'stats/activity',
    // The roles of the audit query: these counts summarize the operations it lists.
    auth: AUDITORS,
    summary: "Operations accepted per UTC hour or day in [from, to), per agent (the most active `top`, the rest as other), and the agents' freezes, unfreezes and revocations in the range.",
    description:
      'bucket hour (at most 744) or day (at most 366); from and to are multiples of the bucket, from before to. ' +
      'agent_id narrows counts and events to one agent. Sealed history counts from the epochs\u2019 and days\u2019 counts; ' +
      'what the sealer has not reached yet is counted from the index.',
    request: { query: activityQuery },
    response: { status: 200, body: activityResponse },
    uses: ['table:read'],
    // Like the audit query's count: an organization the sealer has not reached counts from the index.
    timeoutSeconds: 29,
  }),
};
