/** The words of the activity chart: tick and row labels, the marks' letters, and the summary a screen reader hears. */
import type { Schemas } from '../api/client.js';

type Stats = Schemas['ActivityStats'];
type Action = Schemas['AgentStatusEvent']['action'];

export const EVENT_MARKS: Record<Action, { letter: string; text: string }> = {
  'agent.freeze': { letter: 'F', text: 'frozen' },
  'agent.unfreeze': { letter: 'U', text: 'unfrozen' },
  'agent.revoke': { letter: 'R', text: 'revoked' },
  'key.revoke': { letter: 'K', text: 'key revoked:' },
};

const hourTick = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const hourRow = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
// Day buckets are UTC days (docs/API.md §4.11): named in UTC, whatever the viewer's zone.
const dayTick = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
const dayRow = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

export const tickLabel = (bucket: Stats['bucket'], ms: number) => (bucket === 'hour' ? hourTick : dayTick).format(ms);
export const bucketLabel = (bucket: Stats['bucket'], ms: number) => (bucket === 'hour' ? hourRow : dayRow).format(ms);

export function summaryOf(stats: Stats): string {
  const total = stats.totals.reduce((sum, n) => sum + n, 0);
  if (total === 0 && stats.events.length === 0) return `No operations in these ${stats.buckets.length} ${stats.bucket}s.`;
  const busiest = stats.totals.indexOf(Math.max(...stats.totals));
  const most = stats.series[0];
  return (
    `${total} operation${total === 1 ? '' : 's'} in ${stats.buckets.length} ${stats.bucket}s` +
    (total > 0 ? `, most (${stats.totals[busiest]}) in the ${stats.bucket} of ${bucketLabel(stats.bucket, stats.buckets[busiest]!)}` : '') +
    (most && stats.series.length > 1 ? `; most active agent ${most.agent_id} (${most.total})` : '') +
    (stats.events.length > 0 ? `; ${stats.events.length} status change${stats.events.length === 1 ? '' : 's'} marked.` : '.')
  );
}
