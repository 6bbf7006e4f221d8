/**
 * One agent (docs/API.md §4.3, §3): its facts, chain head and keys; freeze, unfreeze and revoke
 * (agent or key) behind a confirmation with a reason; its activity over time (§4.11);
 * assignments to members (§4.4). Each action appears only for the roles that may take it.
 */
import { useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client.js';
import { submitTo, useAction } from '../components/action.js';
import { ConfirmButton } from '../components/confirm.js';
import { Activity } from '../components/activity.js';
import { ChainStrip } from '../components/chain-strip.js';
import { ShortId } from '../components/copy.js';
import { PageTitle, Status } from '../components/page.js';
import { RecentOperations } from '../components/recent-operations.js';
import { StatusChange } from '../components/status-change.js';
import { ErrorText, Loaded, useResource } from '../components/states.js';
import { Table } from '../components/table.js';
import { Time } from '../components/time.js';
import { useSession } from '../session.js';

type Path = { params: { path: { agent_id: string } } };

function StatusActions({ agent, path, onChange }: { agent: Schemas['Agent']; path: Path; onChange: () => void }) {
  const { can } = useSession();
  const done = () => onChange();
  return (
    <div class="actions">
      {agent.status === 'active' && can('POST /v1/agents/{agent_id}/freeze') && (
        <ConfirmButton
          label="Freeze"
          title={`Freeze ${agent.display_name}?`}
          confirmLabel="Freeze agent"
          askReason
          onConfirm={(reason) => call(api.POST('/v1/agents/{agent_id}/freeze', { ...path, body: { reason } })).then(done)}
        >
          <p>New submissions are refused with AGENT_FROZEN until someone unfreezes it. Keys and history stay.</p>
        </ConfirmButton>
      )}
      {agent.status === 'frozen' && can('POST /v1/agents/{agent_id}/unfreeze') && (
        <ConfirmButton
          label="Unfreeze"
          title={`Unfreeze ${agent.display_name}?`}
          confirmLabel="Unfreeze agent"
          askReason
          onConfirm={(reason) => call(api.POST('/v1/agents/{agent_id}/unfreeze', { ...path, body: { reason } })).then(done)}
        >
          <p>The agent may submit records again.</p>
        </ConfirmButton>
      )}
      {agent.status !== 'revoked' && can('POST /v1/agents/{agent_id}/revoke') && (
        <ConfirmButton
          label="Revoke agent"
          title={`Revoke ${agent.display_name} for good?`}
          confirmLabel="Revoke agent"
          askReason
          danger
          onConfirm={(reason) => call(api.POST('/v1/agents/{agent_id}/revoke', { ...path, body: { reason } })).then(done)}
        >
          <p>Irreversible: the agent and all its keys are revoked. Past operations stay verifiable.</p>
        </ConfirmButton>
      )}
    </div>
  );
}

/** docs/PROTOCOL.md "Proof of possession": an unproven key was registered without one (allowed unless the organization requires it). */
function Possession({ proven }: { proven: boolean | null }) {
  if (proven === true) return <span>proven</span>;
  if (proven === false) return <span class="status status-unproven">not proven</span>;
  return <span class="muted">not recorded</span>;
}

function Keys({ keys, agent, path, onChange }: { keys: Schemas['AgentKey'][]; agent: Schemas['Agent']; path: Path; onChange: () => void }) {
  const { can } = useSession();
  const mayRevoke = agent.status !== 'revoked' && can('POST /v1/agents/{agent_id}/revoke');
  return (
    <Table caption="Keys" showCaption columns={['Key id', 'Public key (Ed25519)', 'Status', 'Added', 'Retired or revoked', 'Proof of possession', mayRevoke && 'Action']}>
      {keys.map((key) => (
        <tr key={key.kid}>
          <td>
            <code>{key.kid}</code>
          </td>
          <td>
            <ShortId value={key.public_key} label={`public key ${key.kid}`} />
          </td>
          <td>
            <Status value={key.status} />
          </td>
          <td>
            <Time ms={key.created_at} />
          </td>
          <td>
            <Time ms={key.retired_at} />
          </td>
          <td>
            <Possession proven={key.possession_proven} />
          </td>
          {mayRevoke && (
            <td>
              {key.status !== 'revoked' && (
                <ConfirmButton
                  label={`Revoke key ${key.kid}`}
                  title={`Revoke key ${key.kid}?`}
                  confirmLabel="Revoke key"
                  askReason
                  danger
                  onConfirm={(reason) => call(api.POST('/v1/agents/{agent_id}/revoke', { ...path, body: { kid: key.kid, reason } })).then(onChange)}
                >
                  <p>Irreversible: records signed with this key are refused with KEY_REVOKED from now on.</p>
                </ConfirmButton>
              )}
            </td>
          )}
        </tr>
      ))}
    </Table>
  );
}

function Assignments({ path }: { path: Path }) {
  const assignments = useResource(() => call(api.GET('/v1/agents/{agent_id}/assignments', path)), [path.params.path.agent_id]);
  const members = useResource(() => call(api.GET('/v1/members')), []);
  const [userId, setUserId] = useState('');
  const assign = useAction(async () => {
    await call(api.POST('/v1/agents/{agent_id}/assignments', { ...path, body: { user_id: userId } }));
    setUserId('');
    assignments.reload();
  });
  const remove = useAction(async (user: string) => {
    await call(api.DELETE('/v1/agents/{agent_id}/assignments/{user_id}', { params: { path: { ...path.params.path, user_id: user } } }));
    assignments.reload();
  });
  const assigned = new Set(assignments.data?.assignments.map((a) => a.user_id) ?? []);
  return (
    <section aria-labelledby="assignments">
      <h2 id="assignments">Assignments</h2>
      <p class="muted">Once any agent is assigned, integration engineers and read-only investigators see only the agents assigned to them.</p>
      <Loaded resource={assignments} what="assignments" isEmpty={(d) => d.assignments.length === 0} empty="Not assigned to anyone.">
        {(data) => (
          <ul class="plain">
            {data.assignments.map((a) => (
              <li key={a.user_id}>
                {a.display_name} ({a.email}), since <Time ms={a.created_at} />{' '}
                <button type="button" onClick={() => void remove.run(a.user_id)} disabled={remove.busy} aria-label={`Unassign ${a.email}`}>
                  Unassign
                </button>
              </li>
            ))}
          </ul>
        )}
      </Loaded>
      <ErrorText error={remove.error} />
      <form class="inline" onSubmit={submitTo(assign.run)}>
        <label>
          Assign to member
          <select required value={userId} onChange={(e) => setUserId(e.currentTarget.value)}>
            <option value="">Choose a member…</option>
            {members.data?.members
              .filter((m) => !assigned.has(m.user_id))
              .map((m) => (
                <option key={m.user_id} value={m.user_id}>
                  {m.display_name} ({m.email})
                </option>
              ))}
          </select>
        </label>
        <button type="submit" disabled={assign.busy || !userId}>
          Assign
        </button>
      </form>
      <ErrorText error={assign.error ?? members.error} />
    </section>
  );
}

export function AgentDetailPage({ agent_id }: { agent_id: string }) {
  const { can } = useSession();
  const path: Path = { params: { path: { agent_id } } };
  // A record arriving while the page is watched moves the head, the chain strip and the charts too.
  const [revision, setRevision] = useState(0);
  const detail = useResource(() => call(api.GET('/v1/agents/{agent_id}', path)), [agent_id, revision]);
  return (
    <>
      <PageTitle title={detail.data ? `Agent ${detail.data.agent.display_name}` : 'Agent'}>
        {detail.data && <StatusActions agent={detail.data.agent} path={path} onChange={detail.reload} />}
      </PageTitle>
      <p>
        <a href="/agents">All agents</a>
      </p>
      <Loaded resource={detail} what="the agent">
        {(data) => (
          <>
            <dl class="facts">
              <dt>Agent id</dt>
              <dd>
                <ShortId value={data.agent.agent_id} label="agent id" head={24} />
              </dd>
              <dt>Status</dt>
              <dd>
                <Status value={data.agent.status} />
                <StatusChange agent={data.agent} />
              </dd>
              <dt>Integration</dt>
              <dd>{data.agent.integration_type}</dd>
              <dt>Responsible</dt>
              <dd>{data.agent.responsible_entity ?? <span class="muted">—</span>}</dd>
              <dt>Registered</dt>
              <dd>
                <Time ms={data.agent.created_at} />
              </dd>
              <dt>Chain head</dt>
              <dd>
                {data.chain.seq_no === 0 ? (
                  <span class="muted">no operation yet</span>
                ) : (
                  <>
                    seq_no {data.chain.seq_no}, chain_hash <ShortId value={data.chain.chain_hash} label="chain hash" />
                  </>
                )}
              </dd>
            </dl>
            {can('GET /v1/epochs') && can('POST /v1/audit/query') && <ChainStrip agent_id={agent_id} head={data.chain.seq_no} />}
            <Keys keys={data.keys} agent={data.agent} path={path} onChange={detail.reload} />
            {can('POST /v1/audit/query') && (
              <p>
                <a href={`/operations?agent_id=${encodeURIComponent(agent_id)}`}>This agent’s operations</a>
              </p>
            )}
          </>
        )}
      </Loaded>
      {can('GET /v1/stats/activity') && <Activity agent_id={agent_id} revision={revision} />}
      {can('POST /v1/audit/query') && <RecentOperations agent_id={agent_id} onArrived={() => setRevision((n) => n + 1)} />}
      {can('GET /v1/agents/{agent_id}/assignments') && <Assignments path={path} />}
    </>
  );
}
