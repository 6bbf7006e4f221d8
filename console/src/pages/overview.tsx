/**
 * The overview: agents by status, operations accepted in the last hour and day (audit query
 * totals, for the roles that may query), the last epoch with its anchor, and the activity
 * charts (per hour and per day, per agent, with freezes and revocations marked).
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.js';
import { PageTitle, Status } from '../components/page.js';
import { Activity } from '../components/activity.js';
import { ConnectAgent } from '../components/connect-agent.js';
import { ShortId } from '../components/copy.js';
import { Loaded, useResource } from '../components/states.js';
import { Time } from '../components/time.js';
import { useSession } from '../session.js';
import { VerificationNotice } from './auth.js';
import { windowOf, windowText } from '../components/epoch-window.js';

const HOUR = 3_600_000;

async function countSince(ms: number): Promise<number> {
  const now = Date.now();
  // end_time is exclusive: + 1 counts what arrived in this very millisecond too.
  const answer = await call(api.POST('/v1/audit/query', { body: { start_time: now - ms, end_time: now + 1, limit: 1 } }));
  return answer.total_count;
}

function AgentsByStatus({ onLoaded }: { onLoaded: (count: number) => void }) {
  const agents = useResource(async () => {
    const answer = await call(api.GET('/v1/agents'));
    onLoaded(answer.agents.length);
    return answer;
  }, []);
  return (
    <section class="tile" aria-labelledby="tile-agents">
      <h2 id="tile-agents">Agents</h2>
      <Loaded resource={agents} what="agents" isEmpty={(d) => d.agents.length === 0} empty="No agents registered yet.">
        {(data) => (
          <dl class="counts">
            {(['active', 'frozen', 'revoked'] as const).map((status) => (
              <div key={status}>
                <dt>
                  <Status value={status} />
                </dt>
                <dd>{data.agents.filter((agent) => agent.status === status).length}</dd>
              </div>
            ))}
          </dl>
        )}
      </Loaded>
      <a href="/agents">All agents</a>
    </section>
  );
}

function RecentOperations() {
  const counts = useResource(async () => {
    const [hour, day] = await Promise.all([countSince(HOUR), countSince(24 * HOUR)]);
    return { hour, day };
  }, []);
  return (
    <section class="tile" aria-labelledby="tile-ops">
      <h2 id="tile-ops">Operations</h2>
      <Loaded resource={counts} what="operation counts">
        {(data) => (
          <dl class="counts">
            <div>
              <dt>Last hour</dt>
              <dd>{data.hour}</dd>
            </div>
            <div>
              <dt>Last 24 hours</dt>
              <dd>{data.day}</dd>
            </div>
          </dl>
        )}
      </Loaded>
      <a href="/operations">Query operations</a>
    </section>
  );
}

function LastEpoch() {
  const last = useResource(async () => {
    const list = await call(api.GET('/v1/epochs', { params: { query: { limit: 1 } } }));
    const epoch = list.epochs[0];
    return epoch ? call(api.GET('/v1/epochs/{epoch_id}', { params: { path: { epoch_id: epoch.epoch_id } } })) : null;
  }, []);
  const windowMs = last.data ? windowOf([last.data.epoch]) : undefined;
  return (
    <section class="tile" aria-labelledby="tile-epoch">
      <h2 id="tile-epoch">Last epoch</h2>
      <Loaded resource={last} what="epochs" isEmpty={(d) => d === null} empty="No epoch sealed yet: operations are sealed into one once their window closes.">
        {(data) => (
          <dl class="facts">
            <dt>Window</dt>
            <dd>
              <Time ms={data!.epoch.start_time} /> – <Time ms={data!.epoch.end_time} />
              {windowMs !== undefined && <span class="muted"> (one every {windowText(windowMs)})</span>}
            </dd>
            <dt>Operations</dt>
            <dd>{data!.epoch.leaf_count}</dd>
            <dt>Merkle root</dt>
            <dd>
              <ShortId value={data!.epoch.root_hash} label="root hash" />
            </dd>
            <dt>Anchor</dt>
            <dd>{data!.anchor ? <>RFC 3161 time-stamp of <Time ms={data!.anchor.anchored_at} /></> : <span class="muted">not anchored</span>}</dd>
          </dl>
        )}
      </Loaded>
      <a href="/epochs">All epochs</a>
    </section>
  );
}

export function OverviewPage() {
  const { can } = useSession();
  // No agent yet: the way to connect one (and word of the first record) below the tiles.
  const [agentCount, setAgentCount] = useState<number | undefined>(undefined);
  return (
    <>
      <PageTitle title="Overview" />
      <VerificationNotice signedIn />
      <div class="tiles">
        {can('GET /v1/agents') && <AgentsByStatus onLoaded={setAgentCount} />}
        {can('POST /v1/audit/query') && <RecentOperations />}
        {can('GET /v1/epochs') && <LastEpoch />}
      </div>
      {agentCount !== 0 && can('GET /v1/stats/activity') && <Activity />}
      {agentCount === 0 && <ConnectAgent canCreateToken={can('POST /v1/auth/token')} canQuery={can('POST /v1/audit/query')} />}
    </>
  );
}
