/**
 * The organization's settings (GET and PATCH /v1/organization, docs/API.md §2.7 and §4.4): its
 * name and description, and whether every new agent key must carry its proof of possession
 * (`require_key_proof`, docs/PROTOCOL.md "Proof of possession"). Every role reads them; only
 * the roles PATCH allows see the controls. Switching the proof rule changes what every
 * integration of the organization may send, so it asks for confirmation either way.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client.js';
import { submitTo, useAction } from '../components/action.js';
import { ConfirmButton } from '../components/confirm.js';
import { PageTitle } from '../components/page.js';
import { ErrorText, Loaded, useResource } from '../components/states.js';
import { Time } from '../components/time.js';
import { useSession } from '../session.js';

type Organization = Schemas['Organization'];

function NameForm({ organization, onSaved }: { organization: Organization; onSaved: () => Promise<void> }) {
  const [name, setName] = useState(organization.org_name);
  const [description, setDescription] = useState(organization.description ?? '');
  useEffect(() => {
    setName(organization.org_name);
    setDescription(organization.description ?? '');
  }, [organization.org_name, organization.description]);
  const save = useAction(async () => {
    await call(api.PATCH('/v1/organization', { body: { org_name: name, description: description.trim() === '' ? null : description } }));
    await onSaved();
  });
  return (
    <form onSubmit={submitTo(save.run)}>
      <label>
        Name
        <input value={name} required maxLength={128} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Description <span class="muted">(optional)</span>
        <textarea value={description} maxLength={512} rows={2} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <div>
        <button type="submit" class="primary" disabled={save.busy}>
          Save
        </button>
      </div>
      <ErrorText error={save.error} />
    </form>
  );
}

function KeyProofRule({ organization, mayChange, onSaved }: { organization: Organization; mayChange: boolean; onSaved: () => Promise<void> }) {
  const on = organization.require_key_proof;
  return (
    <section aria-labelledby="key-proof">
      <h2 id="key-proof">Proof of possession for new agent keys</h2>
      <p>
        <strong id="key-proof-state">{on ? 'Required' : 'Not required'}</strong>
        {on
          ? ': a key registered without a proof that its registrant holds the private key is refused (VALIDATION_ERROR).'
          : ': a key may be registered without a proof, as the original /v1 API allows. It is stored as unproven, and an auditor sees it as unproven in every export.'}
      </p>
      <p class="muted">
        The console, the CLI and the SDKs always send a proof, so their keys are proven either way. An auditor can refuse unproven keys with <code>agent-ledger verify --require-key-proofs</code>.
      </p>
      {mayChange && (
        <ConfirmButton
          label={on ? 'Stop requiring proofs' : 'Require proofs'}
          title={on ? 'Stop requiring proofs of possession?' : 'Require a proof of possession for every new key?'}
          confirmLabel={on ? 'Stop requiring proofs' : 'Require proofs'}
          danger={on}
          onConfirm={async () => {
            await call(api.PATCH('/v1/organization', { body: { require_key_proof: !on } }));
            await onSaved();
          }}
        >
          {on ? (
            <p>Integrations may then register keys without a proof; those keys are marked unproven in the key history and in exports.</p>
          ) : (
            <p>From now on, any integration that registers an agent or adds a key without a proof is refused. Keys already registered stay as they are. The change is in the admin log.</p>
          )}
        </ConfirmButton>
      )}
    </section>
  );
}

export function OrganizationPage() {
  const { can, refresh } = useSession();
  const organization = useResource(() => call(api.GET('/v1/organization')), []);
  const mayChange = can('PATCH /v1/organization');
  // The header shows the organization's name too: reload both after a change.
  const saved = async () => {
    organization.reload();
    await refresh();
  };
  return (
    <>
      <PageTitle title="Organization" />
      <Loaded resource={organization} what="the organization">
        {({ organization: org }) => (
          <>
            <section aria-labelledby="org-facts">
              <h2 id="org-facts">{org.org_name}</h2>
              <dl class="facts">
                <dt>Organization id</dt>
                <dd>
                  <code>{org.org_id}</code>
                </dd>
                <dt>Description</dt>
                <dd>{org.description ?? <span class="muted">none</span>}</dd>
                <dt>Created</dt>
                <dd>
                  <Time ms={org.created_at} />
                </dd>
                <dt>Last changed</dt>
                <dd>
                  <Time ms={org.updated_at} />
                </dd>
              </dl>
              {mayChange && <NameForm organization={org} onSaved={saved} />}
            </section>
            <KeyProofRule organization={org} mayChange={mayChange} onSaved={saved} />
          </>
        )}
      </Loaded>
    </>
  );
}
