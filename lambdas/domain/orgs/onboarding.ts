/**
 * Onboarding (docs/API.md §4.2): a user creates their organization once, as a personal
 * workspace or a named organization with optional invitations, and becomes its org_owner.
 * The user update, the organization, the membership, the org.create event and every
 * invitation with its member.invite event are one transaction; the user update's condition
 * makes a second attempt VALIDATION_ERROR 409.
 */
import { adminEventPut } from '../../store/admin-events.js';
import type { OrgItem } from '../../store/identity-items.js';
import { memberPut, orgPut, userJoin } from '../../store/orgs.js';
import { transact, type GuardedItem } from '../../store/guarded-transact.js';
import { getUser } from '../../store/users.js';
import type { Caller } from '../auth/caller.js';
import { LedgerError, conflict } from '../../shared/errors.js';
import type { Role } from '../../shared/roles.js';
import { invitationWrites, newInvitation } from './invitation-items.js';

export const PERSONAL_WORKSPACE_NAME = 'Personal Workspace';

export async function onboardingStatus(caller: Caller): Promise<{ onboarding_completed: 0 | 1; org_id: string | null }> {
  const user = await getUser(caller.userId);
  return { onboarding_completed: user?.onboarding_completed ?? 0, org_id: user?.org_id ?? null };
}

interface NewOrganization {
  kind: 'personal' | 'organization';
  orgName: string;
  description?: string;
  invitations?: readonly { email: string; role: Role }[];
}

function checkInvitations(caller: Caller, invitations: readonly { email: string }[]): void {
  const seen = new Set<string>();
  invitations.forEach((invitation, index) => {
    const email = invitation.email.trim().toLowerCase();
    if (email === caller.email.toLowerCase()) {
      throw new LedgerError('VALIDATION_ERROR', `body.invitations[${index}].email: you cannot invite yourself`);
    }
    if (seen.has(email)) throw new LedgerError('VALIDATION_ERROR', `body.invitations[${index}].email: invited twice`);
    seen.add(email);
  });
}

export async function createOrganization(caller: Caller, input: NewOrganization, now = Date.now()): Promise<{ org_id: string }> {
  const invitations = input.invitations ?? [];
  checkInvitations(caller, invitations);
  const orgId = crypto.randomUUID();
  const org: OrgItem = {
    org_id: orgId,
    org_name: input.orgName,
    description: input.description ?? null,
    created_at: now,
    updated_at: now,
    created_by: caller.userId,
    assignment_count: 0,
    owner_count: 1,
  };
  const items: GuardedItem[] = [
    { item: userJoin(caller.userId, orgId, 'org_owner', now), onConditionFailed: () => conflict('onboarding is already completed') },
    { item: orgPut(org) },
    {
      item: memberPut(orgId, {
        member_id: crypto.randomUUID(),
        user_id: caller.userId,
        role: 'org_owner',
        joined_at: new Date(now).toISOString(),
        email: caller.email,
        display_name: caller.displayName,
      }),
    },
    {
      item: adminEventPut({
        orgId,
        actor: caller.userId,
        action: 'org.create',
        targetType: 'organization',
        targetId: orgId,
        details: { org_name: org.org_name, kind: input.kind },
        now,
      }),
    },
    ...invitations.flatMap((invitation) =>
      invitationWrites(newInvitation({ orgId, email: invitation.email, role: invitation.role, inviterId: caller.userId, now }), now).map(
        (item) => ({ item }),
      ),
    ),
  ];
  await transact(items);
  return { org_id: orgId };
}
