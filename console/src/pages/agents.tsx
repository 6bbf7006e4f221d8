/** The organization's agents (docs/API.md §4.3; roles without read_all see only their assigned ones). */
import { api, call } from '../api/client.js';
import { ConnectAgent } from '../components/connect-agent.js';
import { npmInstall, useServedClient } from '../components/served-client.js';
import { ShortId } from '../components/copy.js';
import { PageTitle, Status } from '../components/page.js';
import { Loaded, useResource } from '../components/states.js';
import { Table } from '../components/table.js';
import { Time } from '../components/time.js';
import { useSession } from '../session.js';

export function AgentsPage() {
  const { can } = useSession();
  const agents = useResource(() => call(api.GET('/v1/agents')), []);
  const served = useServedClient();
  const npm = served.state === 'served' ? served.npm : undefined;
  const connecting = agents.data?.agents.length === 0 && can('POST /v1/agents/register');
  return (
    <>
      <PageTitle title="Agents">
        <button type="button" onClick={agents.reload}>
          Refresh
        </button>
      </PageTitle>
      <p class="muted">
        Agents register through the API or <code>agent-ledger agent init</code>, with the CLI this service hands out
        {npm && !connecting ? (
          <>
            {' '}
            (<code class="install-command">{npmInstall(npm)}</code>)
          </>
        ) : null}
        ; their records arrive signed.
      </p>
      <Loaded resource={agents} what="agents" isEmpty={(d) => d.agents.length === 0} empty="No agents yet (or none assigned to you).">
        {(data) => (
          <Table caption="Agents" columns={['Name', 'Agent id', 'Integration', 'Status', 'Updated']}>
            {data.agents.map((agent) => (
              <tr key={agent.agent_id}>
                <td>
                  <a href={`/agents/${encodeURIComponent(agent.agent_id)}`}>{agent.display_name}</a>
                </td>
                <td>
                  <ShortId value={agent.agent_id} label="agent id" head={12} />
                </td>
                <td>{agent.integration_type}</td>
                <td>
                  <Status value={agent.status} />
                </td>
                <td>
                  <Time ms={agent.updated_at} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Loaded>
      {connecting && <ConnectAgent canCreateToken={can('POST /v1/auth/token')} canQuery={can('POST /v1/audit/query')} />}
    </>
  );
}
