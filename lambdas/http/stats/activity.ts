/** GET /v1/stats/activity (docs/API.md §4.11). */
import { activityStats } from '../../domain/stats/activity.js';
import { statsRoutes } from '../../routes/route-table/stats.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(statsRoutes.activityStats, async ({ caller, query }) => ({
  body: await activityStats(caller, query),
}));
