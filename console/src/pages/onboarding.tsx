/**
 * Onboarding (docs/API.md §4.2), once per user: join an organization that invited the user's
 * verified address, create a named organization, or take a personal workspace.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../api/client.js';
import { ROLE_LABELS, type Role } from '../api/roles.js';
import { submitTo, useAction } from '../components/action.js';
import { PageTitle } from '../components/page.js';
import { ErrorText, Loaded, useResource } from '../components/states.js';
import { IsoTime } from '../components/time.js';
import { useSession } from '../session.js';

function Invitations({ onJoined }: { onJoined: () => Promise<void> }) {
  const invitations = useResource(() => call(api.GET('/v1/invitations')), []);
  const accept = useAction(async (invitationId: string) => {
    await call(api.POST('/v1/invitations/{invitation_id}/accept', { params: { path: { invitation_id: invitationId } } }));
    await onJoined();
  });
  return (
    <section aria-labelledby="invited">
      <h2 id="invited">Invitations</h2>
      <Loaded resource={invitations} what="invitations" isEmpty={(d) => d.invitations.length === 0} empty="No invitation to your address (invitations show once your email is verified).">
        {(data) => (
          <ul class="cards">
            {data.invitations.map((invitation) => (
              <li key={invitation.invitation_id}>
                <strong>{invitation.org_name}</strong> invites you as {ROLE_LABELS[invitation.role as Role]} (until <IsoTime iso={invitation.expires_at} />){' '}
                <button type="button" class="primary" disabled={accept.busy} onClick={() => void accept.run(invitation.invitation_id)}>
                  Join {invitation.org_name}
                </button>
              </li>
            ))}
          </ul>
        )}
      </Loaded>
      <ErrorText error={accept.error} />
    </section>
  );
}

export function OnboardingPage() {
  const { profile, refresh, signOut } = useSession();
  const [orgName, setOrgName] = useState('');
  const [description, setDescription] = useState('');
  const create = useAction(async () => {
    await call(api.POST('/v1/onboarding/organization', { body: { org_name: orgName, ...(description ? { description } : {}) } }));
    await refresh();
  });
  const personal = useAction(async () => {
    await call(api.POST('/v1/onboarding/personal'));
    await refresh();
  });
  return (
    <main class="auth wide" id="content">
      <PageTitle title="Set up your workspace" />
      <p>
        Signed in as {profile?.user.email}.{' '}
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </p>
      <Invitations onJoined={refresh} />
      <section aria-labelledby="new-org">
        <h2 id="new-org">Create an organization</h2>
        <form onSubmit={submitTo(create.run)}>
          <label>
            Organization name
            <input required maxLength={128} value={orgName} onInput={(e) => setOrgName(e.currentTarget.value)} />
          </label>
          <label>
            Description <span class="muted">(optional)</span>
            <textarea maxLength={512} rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
          </label>
          <ErrorText error={create.error} />
          <button type="submit" class="primary" disabled={create.busy}>
            Create organization
          </button>
        </form>
      </section>
      <section aria-labelledby="personal">
        <h2 id="personal">Or work alone</h2>
        <button type="button" onClick={() => void personal.run()} disabled={personal.busy}>
          Use a personal workspace
        </button>
        <ErrorText error={personal.error} />
      </section>
    </main>
  );
}
