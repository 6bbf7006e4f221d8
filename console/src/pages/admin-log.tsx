/**
 * The admin log (docs/API.md §4.6, §6.3), newest first, actors named by their member email, and
 * each event's details (a JSON-encoded object) as a list of names and values, not raw JSON.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.js';
import { ShortId } from '../components/copy.js';
import { PageTitle } from '../components/page.js';
import { Loaded, useResource } from '../components/states.js';
import { Table } from '../components/table.js';
import { Time } from '../components/time.js';
import { Words } from '../components/words.js';

/** A detail's value as text: strings as they are, anything else as compact JSON. */
const valueText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A value shown: a moment (`..._time`, `..._at` in ms) as a time, anything else as its words. */
function DetailValue({ name, value }: { name: string; value: unknown }) {
  if (typeof value === 'number' && /(?:_time|_at)$/.test(name)) return <Time ms={value} />;
  return <Words text={valueText(value)} />;
}

function Details({ details }: { details: string | null }) {
  if (details === null) return <span class="muted">—</span>;
  let parsed: unknown;
  try {
    parsed = JSON.parse(details);
  } catch {
    return <>{details}</>;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return <>{valueText(parsed)}</>;
  const entries = Object.entries(parsed);
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <dl class="details-list">
      {entries.map(([name, value]) => (
        <Fragment key={name}>
          <dt>{name.replaceAll('_', ' ')}</dt>
          <dd>
            <DetailValue name={name} value={value} />
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}

export function AdminLogPage() {
  const [limit, setLimit] = useState(50);
  const events = useResource(() => call(api.GET('/v1/admin/events', { params: { query: { limit } } })), [limit]);
  const members = useResource(() => call(api.GET('/v1/members')), []);
  const who = (userId: string) => members.data?.members.find((m) => m.user_id === userId)?.email;
  return (
    <>
      <PageTitle title="Admin log">
        <label class="inline-label">
          Show
          <select value={String(limit)} onChange={(e) => setLimit(Number(e.currentTarget.value))}>
            {[20, 50, 100].map((n) => (
              <option key={n} value={n}>
                {n} newest
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={events.reload}>
          Refresh
        </button>
      </PageTitle>
      <Loaded resource={events} what="admin events" isEmpty={(d) => d.events.length === 0} empty="Nothing recorded yet.">
        {(data) => (
          <Table caption="Admin events, newest first" columns={['When', 'Who', 'Action', 'Target', 'Details']}>
            {data.events.map((event) => (
              <tr key={event.event_id}>
                <td>
                  <Time ms={event.created_at} />
                </td>
                <td>{who(event.actor) ?? <ShortId value={event.actor} label="user id" />}</td>
                <td>
                  <code>{event.action}</code>
                </td>
                <td>
                  {event.target_type} <ShortId value={event.target_id} label={`${event.target_type} id`} />
                </td>
                <td class="details">
                  <Details details={event.details} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Loaded>
    </>
  );
}
