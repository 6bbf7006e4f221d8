/**
 * Why an agent is frozen or revoked, when and by whom, beside its status: the newest
 * `agent.freeze` or `agent.revoke` of the agent's status changes (GET /v1/stats/activity's
 * `events`, which the admin log feeds: docs/API.md §4.11), the actor named by their member
 * email. The agent's `updated_at` bounds the search: the change is on or after that day.
 * Roles that may not read the statistics see the time of the last change only.
 */
import { api, call } from '../api/client.js';
import { useSession } from '../session.js';
import { useResource } from './states.js';
import { Time } from './time.js';
import { Words } from './words.js';

const DAY = 86_400_000;
/** GET /v1/stats/activity covers at most 366 days. */
const MOST_DAYS = 366;

const ACTION_OF: Record<string, string> = { frozen: 'agent.freeze', revoked: 'agent.revoke' };

export function StatusChange({ agent }: { agent: { agent_id: string; status: string; updated_at: number } }) {
  const { can } = useSession();
  const action = ACTION_OF[agent.status];
  const readable = action !== undefined && can('GET /v1/stats/activity');
  const change = useResource(async () => {
    if (!readable) return null;
    const to = Math.floor(Date.now() / DAY) * DAY + DAY;
    const from = Math.max(Math.floor(agent.updated_at / DAY) * DAY, to - MOST_DAYS * DAY);
    const [stats, members] = await Promise.all([
      call(api.GET('/v1/stats/activity', { params: { query: { bucket: 'day', from, to, agent_id: agent.agent_id } } })),
      can('GET /v1/members') ? call(api.GET('/v1/members')).catch(() => null) : Promise.resolve(null),
    ]);
    const event = stats.events.filter((e) => e.action === action).at(-1);
    if (event === undefined) return null;
    const actor = members?.members.find((m) => m.user_id === event.actor)?.email ?? event.actor;
    return { at: event.created_at, actor, reason: event.reason };
  }, [agent.agent_id, agent.status, agent.updated_at, readable]);
  if (action === undefined) return null;
  const found = change.data;
  if (!found) {
    return (
      <span class="status-change">
        {' '}
        since <Time ms={agent.updated_at} />
      </span>
    );
  }
  return (
    <span class="status-change">
      {' '}
      since <Time ms={found.at} />, by {found.actor}
      {found.reason !== undefined && found.reason !== null && (
        <>
          :{' '}
          <q class="reason">
            <Words text={found.reason} />
          </q>
        </>
      )}
    </span>
  );
}
