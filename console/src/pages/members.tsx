/**
 * Members, invitations and roles (docs/API.md §4.4 and the member routes of GET /v1/openapi.json).
 * Only an owner may grant or take away org_owner, nobody changes their own role, and the last
 * owner stays (SECURITY.md, Rules the service enforces): the page offers only what those rules allow, and shows the
 * server's answer next to the control when it refuses anyway.
 */
import { useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client.js';
import { ROLE_LABELS, ROLES, type Role } from '../api/roles.js';
import { submitTo, useAction } from '../components/action.js';
import { ConfirmButton } from '../components/confirm.js';
import { PageTitle } from '../components/page.js';
import { ErrorText, Loaded, useResource } from '../components/states.js';
import { Table } from '../components/table.js';
import { IsoTime } from '../components/time.js';
import { useSession } from '../session.js';

function RoleSelect({ member, onChanged }: { member: Schemas['Member']; onChanged: () => void }) {
  const { role, profile } = useSession();
  const change = useAction(async (next: Role) => {
    await call(api.PATCH('/v1/members/{user_id}', { params: { path: { user_id: member.user_id } }, body: { role: next } }));
    onChanged();
  });
  const self = member.user_id === profile?.user.user_id;
  const ownerOnly = role !== 'org_owner';
  const locked = self || (ownerOnly && member.role === 'org_owner');
  if (locked) return <span>{ROLE_LABELS[member.role]}</span>;
  const id = `role-${member.user_id}`;
  return (
    <>
      <label class="visually-hidden" for={id}>
        Role of {member.email}
      </label>
      <select id={id} value={member.role} disabled={change.busy} onChange={(e) => void change.run(e.currentTarget.value as Role)}>
        {ROLES.filter((r) => r !== 'org_owner' || !ownerOnly).map((r) => (
          <option key={r} value={r}>
            {ROLE_LABELS[r]}
          </option>
        ))}
      </select>
      <ErrorText error={change.error} />
    </>
  );
}

function Members() {
  const { can, profile, role } = useSession();
  const members = useResource(() => call(api.GET('/v1/members')), []);
  const manage = can('PATCH /v1/members/{user_id}');
  return (
    <section aria-labelledby="members">
      <h2 id="members">People in this organization</h2>
      <Loaded resource={members} what="members" isEmpty={(d) => d.members.length === 0}>
        {(data) => (
          <Table caption="Members" columns={['Name', 'Email', 'Role', 'Joined', manage && 'Action']}>
            {data.members.map((member) => (
              <tr key={member.user_id}>
                <td>{member.display_name}</td>
                <td>{member.email}</td>
                <td>{manage ? <RoleSelect member={member} onChanged={members.reload} /> : ROLE_LABELS[member.role]}</td>
                <td>
                  <IsoTime iso={member.joined_at} />
                </td>
                {manage && (
                  <td>
                    {member.user_id !== profile?.user.user_id && (member.role !== 'org_owner' || role === 'org_owner') && can('DELETE /v1/members/{user_id}') && (
                      <ConfirmButton
                        label={`Remove ${member.email}`}
                        title={`Remove ${member.email}?`}
                        confirmLabel="Remove member"
                        danger
                        onConfirm={() => call(api.DELETE('/v1/members/{user_id}', { params: { path: { user_id: member.user_id } } })).then(members.reload)}
                      >
                        <p>Their API tokens stop working for good and their assignments go.</p>
                      </ConfirmButton>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </Table>
        )}
      </Loaded>
    </section>
  );
}

function Invitations() {
  const { role } = useSession();
  const invitations = useResource(() => call(api.GET('/v1/members/invitations')), []);
  const [email, setEmail] = useState('');
  const [invitedRole, setInvitedRole] = useState<Role>('readonly_investigator');
  const invite = useAction(async () => {
    await call(api.POST('/v1/members/invitations', { body: { email, role: invitedRole } }));
    setEmail('');
    invitations.reload();
  });
  const cancel = useAction(async (invitationId: string) => {
    await call(api.DELETE('/v1/members/invitations/{invitation_id}', { params: { path: { invitation_id: invitationId } } }));
    invitations.reload();
  });
  return (
    <section aria-labelledby="invitations">
      <h2 id="invitations">Invitations</h2>
      <form class="inline" onSubmit={submitTo(invite.run)}>
        <label>
          Email
          <input type="email" required maxLength={256} value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Role
          <select value={invitedRole} onChange={(e) => setInvitedRole(e.currentTarget.value as Role)}>
            {ROLES.filter((r) => r !== 'org_owner' || role === 'org_owner').map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary" disabled={invite.busy}>
          Invite
        </button>
        <ErrorText error={invite.error} />
      </form>
      <p class="muted">The invitee signs up (or in) with that address, verifies it, and finds the invitation on the onboarding page. Valid 7 days.</p>
      <Loaded resource={invitations} what="invitations" isEmpty={(d) => d.invitations.length === 0} empty="No pending invitation.">
        {(data) => (
          <ul class="plain">
            {data.invitations.map((invitation) => (
              <li key={invitation.invitation_id}>
                {invitation.email} as {ROLE_LABELS[invitation.role]}, until <IsoTime iso={invitation.expires_at} />{' '}
                <button type="button" disabled={cancel.busy} onClick={() => void cancel.run(invitation.invitation_id)} aria-label={`Cancel the invitation of ${invitation.email}`}>
                  Cancel
                </button>
              </li>
            ))}
          </ul>
        )}
      </Loaded>
      <ErrorText error={cancel.error} />
    </section>
  );
}

export function MembersPage() {
  const { can } = useSession();
  return (
    <>
      <PageTitle title="Members" />
      <Members />
      {can('GET /v1/members/invitations') && <Invitations />}
    </>
  );
}
