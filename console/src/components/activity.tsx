/**
 * Operations over time (docs/API.md §4.11): per hour over the last 24 hours and per day over
 * the last 30 days, for the organization (the overview) or one agent (its page). The chart
 * module, with the charting library, is imported only here and only once this renders, so
 * pages without a chart never load it.
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client.js';
import { ErrorText, useResource } from './states.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;

type ChartProps = { stats: Schemas['ActivityStats']; title: string; id: string };

/** The chart module, once loaded; shared by every chart on the page. */
let chartModule: Promise<ComponentType<ChartProps>> | undefined;
function useChart(): { chart?: ComponentType<ChartProps>; error?: unknown } {
  const [state, setState] = useState<{ chart?: ComponentType<ChartProps>; error?: unknown }>({});
  useEffect(() => {
    chartModule ??= import('../charts/activity-chart.js').then((module) => module.default);
    chartModule.then(
      (chart) => setState({ chart }),
      (error: unknown) => setState({ error }),
    );
  }, []);
  return state;
}

/** The last `count` whole buckets and the current one. */
function lastBuckets(size: number, count: number): { from: number; to: number } {
  const to = Math.floor(Date.now() / size) * size + size;
  return { from: to - count * size, to };
}

function ActivityFigure({ bucket, agent_id, title, id, revision }: { bucket: 'hour' | 'day'; agent_id?: string; title: string; id: string; revision: number }) {
  const { chart: Chart, error } = useChart();
  const stats = useResource(() => {
    const range = bucket === 'hour' ? lastBuckets(HOUR, 24) : lastBuckets(DAY, 30);
    return call(api.GET('/v1/stats/activity', { params: { query: { bucket, ...range, ...(agent_id === undefined ? {} : { agent_id }) } } }));
  }, [bucket, agent_id, revision]);
  if (error !== undefined || stats.error !== undefined) return <ErrorText error={error ?? stats.error} />;
  // While a newer answer loads, the chart shown stays (stats.data is kept until then).
  if (Chart === undefined || stats.data === undefined) return <p class="muted">Loading {title.toLowerCase()}…</p>;
  return <Chart stats={stats.data} title={title} id={id} />;
}

/** `revision` changes when new records arrived on the page: the charts read their numbers again. */
export function Activity({ agent_id, revision = 0 }: { agent_id?: string; revision?: number }) {
  return (
    <section class="activity" aria-labelledby="activity-heading">
      <h2 id="activity-heading">Activity</h2>
      <ActivityFigure bucket="hour" agent_id={agent_id} title="Operations per hour, last 24 hours" id="activity-hours" revision={revision} />
      <ActivityFigure bucket="day" agent_id={agent_id} title="Operations per day, last 30 days" id="activity-days" revision={revision} />
    </section>
  );
}
