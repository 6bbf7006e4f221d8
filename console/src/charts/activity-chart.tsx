/**
 * The activity chart (docs/API.md §4.11): operations per bucket as stacked bars, one colour per
 * agent of the answer's `series` and one for `other`, with the agents' freezes, unfreezes and
 * revocations marked where they happened on the time axis. Drawn with visx (SVG, through
 * preact/compat: console/vite.config.ts), loaded only by the pages that show a chart
 * (components/activity.tsx imports this module dynamically). The picture is one image to
 * assistive technology, named by its title and summary; the numbers behind it are a table
 * (visually hidden until shown) and the marks a list.
 */
import { AxisBottom, AxisLeft } from '@visx/axis';
import { Group } from '@visx/group';
import { scaleBand, scaleLinear } from '@visx/scale';
import { BarStack } from '@visx/shape';
import { useState } from 'preact/hooks';
import type { Schemas } from '../api/client.js';
import { Time } from '../components/time.js';
import { bucketLabel, EVENT_MARKS, summaryOf, tickLabel } from './activity-text.js';

type Stats = Schemas['ActivityStats'];

const WIDTH = 760;
const HEIGHT = 260;
const MARGIN = { top: 22, right: 12, bottom: 34, left: 44 };
const OTHER = 'other';

/** Room a mark's letter takes on the time axis, in the chart's units (12 px letters). */
const LETTER_GAP = 12;

/**
 * Where each mark's letter goes: at its line, unless that would overlap the letter before
 * (a freeze and an unfreeze in one hour), then just after it. The lines stay where the moments
 * are; only the letters make room. `xs` are in the events' order, oldest first.
 */
function spreadLetters(xs: readonly number[]): number[] {
  const placed: number[] = [];
  for (const x of xs) placed.push(placed.length === 0 ? x : Math.max(x, placed[placed.length - 1]! + LETTER_GAP));
  return placed;
}

function ActivityBars({ stats, labelledBy }: { stats: Stats; labelledBy: string }) {
  const keys = [...stats.series.map((_, i) => `s${i}`), ...(stats.other.total > 0 ? [OTHER] : [])];
  const rows = stats.buckets.map((start, i) => ({
    start,
    ...Object.fromEntries(stats.series.map((one, s) => [`s${s}`, one.counts[i]!])),
    [OTHER]: stats.other.counts[i]!,
  })) as ({ start: number } & Record<string, number>)[];
  const size = stats.buckets.length > 1 ? stats.buckets[1]! - stats.buckets[0]! : stats.to - stats.from;
  const innerWidth = WIDTH - MARGIN.left - MARGIN.right;
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = scaleBand<number>({ domain: stats.buckets, range: [0, innerWidth], padding: 0.15 });
  const y = scaleLinear<number>({ domain: [0, Math.max(1, ...stats.totals)], range: [innerHeight, 0], nice: true });
  // A mark sits where its moment falls inside its bucket's band.
  const at = (ms: number) => {
    const index = Math.min(stats.buckets.length - 1, Math.floor((ms - stats.from) / size));
    return (x(stats.buckets[index]!) ?? 0) - (x.step() * x.padding()) / 2 + x.step() * ((ms - stats.buckets[index]!) / size);
  };
  const every = Math.ceil(stats.buckets.length / 8);
  return (
    <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={labelledBy}>
      <Group left={MARGIN.left} top={MARGIN.top}>
        <BarStack data={rows} keys={keys} x={(row) => row.start} xScale={x} yScale={y} color={() => ''}>
          {(stacks) =>
            stacks.map((stack) =>
              stack.bars.map((bar) =>
                bar.height > 0 ? (
                  <rect
                    key={`${stack.key}-${bar.index}`}
                    class={`bar ${stack.key === OTHER ? 'series-other' : `series-${stack.index}`}`}
                    x={bar.x}
                    y={bar.y}
                    width={bar.width}
                    height={bar.height}
                  />
                ) : null,
              ),
            )
          }
        </BarStack>
        {spreadLetters(stats.events.map((event) => at(event.created_at))).map((letterX, i) => {
          const event = stats.events[i]!;
          const lineX = at(event.created_at);
          return (
            <g key={event.event_id} class={`mark mark-${event.action.replace('.', '-')}`} transform={`translate(${lineX},0)`}>
              <line y1={-4} y2={innerHeight} />
              <text x={letterX - lineX} y={-8} text-anchor="middle">
                {EVENT_MARKS[event.action].letter}
              </text>
            </g>
          );
        })}
        <AxisLeft scale={y} numTicks={4} tickFormat={(n) => String(n)} stroke="currentColor" tickStroke="currentColor" tickLabelProps={{ fill: 'currentColor', fontSize: 11 }} />
        <AxisBottom
          top={innerHeight}
          scale={x}
          tickValues={stats.buckets.filter((_, i) => i % every === 0)}
          tickFormat={(ms) => tickLabel(stats.bucket, ms)}
          stroke="currentColor"
          tickStroke="currentColor"
          tickLabelProps={{ fill: 'currentColor', fontSize: 11 }}
        />
      </Group>
    </svg>
  );
}

/** The numbers of the chart, one row per bucket. */
function NumbersTable({ stats, caption }: { stats: Stats; caption: string }) {
  return (
    <table class="activity-numbers">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{stats.bucket === 'hour' ? 'Hour starting' : 'Day (UTC)'}</th>
          {stats.series.map((one) => (
            <th scope="col" key={one.agent_id}>
              {one.agent_id}
            </th>
          ))}
          {stats.other.agent_count > 0 && <th scope="col">Other agents ({stats.other.agent_count})</th>}
          <th scope="col">Total</th>
        </tr>
      </thead>
      <tbody>
        {stats.buckets.map((start, i) => (
          <tr key={start} data-bucket={start}>
            <th scope="row">{bucketLabel(stats.bucket, start)}</th>
            {stats.series.map((one) => (
              <td key={one.agent_id}>{one.counts[i]}</td>
            ))}
            {stats.other.agent_count > 0 && <td>{stats.other.counts[i]}</td>}
            <td>{stats.totals[i]}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default function ActivityChart({ stats, title, id }: { stats: Stats; title: string; id: string }) {
  const [showNumbers, setShowNumbers] = useState(false);
  const summary = summaryOf(stats);
  return (
    <figure class="activity-chart" data-bucket={stats.bucket}>
      <figcaption>
        <span id={`${id}-title`} class="chart-title">
          {title}
        </span>
        <span id={`${id}-summary`} class="muted">
          {' '}
          {summary}
        </span>
      </figcaption>
      <ActivityBars stats={stats} labelledBy={`${id}-title ${id}-summary`} />
      <ul class="legend" aria-label="Legend">
        {stats.series.map((one, i) => (
          <li key={one.agent_id}>
            <span class={`swatch series-${i}`} aria-hidden="true" /> {one.agent_id} ({one.total})
          </li>
        ))}
        {stats.other.total > 0 && (
          <li>
            <span class="swatch series-other" aria-hidden="true" /> {stats.other.agent_count} other agents ({stats.other.total})
          </li>
        )}
      </ul>
      {stats.events.length > 0 && (
        <ul class="marks" aria-label="Status changes marked on the chart">
          {stats.events.map((event) => (
            <li key={event.event_id} data-event={event.action}>
              <span class={`mark-key mark-${event.action.replace('.', '-')}`} aria-hidden="true">
                {EVENT_MARKS[event.action].letter}
              </span>{' '}
              <Time ms={event.created_at} /> {event.agent_id} {EVENT_MARKS[event.action].text}
              {event.kid !== undefined && ` ${event.kid}`}
              {event.reason !== undefined && <span class="muted"> ({event.reason})</span>}
            </li>
          ))}
        </ul>
      )}
      <button type="button" aria-expanded={showNumbers} aria-controls={`${id}-numbers`} onClick={() => setShowNumbers(!showNumbers)}>
        {showNumbers ? 'Hide the numbers' : 'Show the numbers'}
      </button>
      <div id={`${id}-numbers`} class={showNumbers ? 'numbers' : 'numbers visually-hidden'}>
        <NumbersTable stats={stats} caption={`${title}: operations per ${stats.bucket}`} />
      </div>
    </figure>
  );
}
