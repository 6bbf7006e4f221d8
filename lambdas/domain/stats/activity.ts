/**
 * GET /v1/stats/activity (docs/API.md §4.11): operations per UTC hour or day, one series for
 * each of the `top` most active agents of the range and the rest summed as `other`, with the
 * agents' freezes, unfreezes and revocations in the range. Tenancy is in the keys: every read
 * is of the caller's organization's partitions. The route's roles all have read_all
 * (docs/API.md §5), so no agent visibility applies, as for the audit query.
 */
import type { OrgCaller } from '../auth/caller.js';
import { BUCKET_MS, type BucketName } from '../../shared/stats-buckets.js';
import { bucketCounts, UNKNOWN_AGENT } from './bucket-counts.js';
import { statusEvents, type StatusEvent } from './status-events.js';

interface ActivityRequest {
  bucket: BucketName;
  from: number;
  to: number;
  agent_id?: string | undefined;
  top: number;
}

interface ActivityStats {
  bucket: BucketName;
  from: number;
  to: number;
  buckets: number[];
  totals: number[];
  series: { agent_id: string; total: number; counts: number[] }[];
  other: { agent_count: number; total: number; counts: number[] };
  events: StatusEvent[];
}

export async function activityStats(caller: OrgCaller, request: ActivityRequest): Promise<ActivityStats> {
  const { bucket, from, to, agent_id: agentId } = request;
  const size = BUCKET_MS[bucket];
  const [counts, events] = await Promise.all([bucketCounts(caller.orgId, { from, to, size }, agentId), statusEvents(caller.orgId, { from, to }, agentId)]);

  const totalOf = new Map<string, number>();
  for (const byAgent of counts) for (const [agent, n] of byAgent) totalOf.set(agent, (totalOf.get(agent) ?? 0) + n);
  const ranked = [...totalOf.entries()]
    .filter(([agent]) => agent !== UNKNOWN_AGENT)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .map(([agent]) => agent);
  const top = ranked.slice(0, request.top);
  const series = top.map((agent) => ({ agent_id: agent, total: totalOf.get(agent)!, counts: counts.map((byAgent) => byAgent.get(agent) ?? 0) }));
  const totals = counts.map((byAgent) => [...byAgent.values()].reduce((sum, n) => sum + n, 0));
  const otherCounts = totals.map((total, i) => total - series.reduce((sum, one) => sum + one.counts[i]!, 0));
  return {
    bucket,
    from,
    to,
    buckets: counts.map((_, i) => from + i * size),
    totals,
    series,
    other: { agent_count: ranked.length - top.length, total: otherCounts.reduce((sum, n) => sum + n, 0), counts: otherCounts },
    events,
  };
}
