/** The admin log (docs/API.md §4.6, §6.3), newest first, actors named by their member email. */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.js';
import { ShortId } from '../components/copy.js';
import { PageTitle } from '../components/page.js';
import { Loaded, useResource } from '../components/states.js';
import { Table } from '../components/table.js';
import { Time } from '../components/time.js';

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
                <td class="details">{event.details ?? <span class="muted">—</span>}</td>
              </tr>
            ))}
          </Table>
        )}
      </Loaded>
    </>
  );
}
