/**
 * Members (docs/API.md §4.4): list, change a role, remove. The member
 * item and the user item carry the role together (one transaction), and the org's
 * owner_count is changed in that transaction under the condition that an owner remains, so
 * the last org_owner can be neither demoted nor removed, even by two concurrent requests.
 * A role change applies to the member's next request (domain/auth/caller-lookup.ts reads the user item).
 */
import { adminEventPut } from '../../store/admin-events.js';
import type { MemberItem } from '../../store/identity-items.js';
import {
  assignmentDelete,
  getMember,
  listMembers,
  listUserAssignments,
  memberDelete,
  memberRole,
  orgCounters,
  userLeave,
  userRole,
} from '../../store/orgs.js';
import { MAX_TRANSACTION_ITEMS } from '../../store/dynamo.js';
import { transact } from '../../store/guarded-transact.js';
import type { OrgCaller } from '../auth/caller.js';
import { conflict, notFound } from '../../shared/errors.js';
import type { Role } from '../../shared/roles.js';
import { memberView } from './member-views.js';
import { assertMayChangeMember, callerStillOwner, touchesOwner } from './owner-rights.js';
import { forgetCachedCallers } from '../auth/caller-lookup.js';

export async function members(caller: OrgCaller) {
  return (await listMembers(caller.orgId)).sort((a, b) => a.joined_at.localeCompare(b.joined_at)).map(memberView);
}

async function existingMember(orgId: string, userId: string): Promise<MemberItem> {
  const member = await getMember(orgId, userId);
  if (!member) throw notFound(`member ${userId}`);
  return member;
}

const raced = () => conflict('the member changed concurrently; retry the request');

function ownerDelta(from: Role, to: Role | null): number {
  return (to === 'org_owner' ? 1 : 0) - (from === 'org_owner' ? 1 : 0);
}

export async function changeRole(caller: OrgCaller, userId: string, role: Role, now = Date.now()) {
  const member = await existingMember(caller.orgId, userId);
  assertMayChangeMember(caller, userId, member.role, role);
  if (member.role === role) return memberView(member);
  const owners = ownerDelta(member.role, role);
  await transact([
    ...(touchesOwner(member.role, role) ? [callerStillOwner(caller)] : []),
    { item: memberRole(caller.orgId, userId, member.role, role), onConditionFailed: raced },
    { item: userRole(userId, caller.orgId, role, now), onConditionFailed: raced },
    {
      item: orgCounters(caller.orgId, { owners }),
      onConditionFailed: () => (owners < 0 ? conflict('the last org_owner cannot be demoted') : notFound('organization')),
    },
    {
      item: adminEventPut({
        orgId: caller.orgId,
        actor: caller.userId,
        action: 'member.role_change',
        targetType: 'member',
        targetId: userId,
        details: { from: member.role, to: role },
        now,
      }),
    },
  ]);
  forgetCachedCallers({ userId });
  return memberView({ ...member, role });
}

/** Fixed items of a removal: member, user, org counters, admin event. */
const REMOVAL_ITEMS = 4;

/**
 * Removes a member; their agent assignments in this organization go in the same transaction
 * (else the org's assignment count would keep the read_all rule on for no one). The user is
 * back to no organization; their API tokens of this organization stop working
 * (domain/auth/caller-lookup.ts), their session stays for onboarding or another invitation.
 */
export async function removeMember(caller: OrgCaller, userId: string, now = Date.now()): Promise<void> {
  const member = await existingMember(caller.orgId, userId);
  assertMayChangeMember(caller, userId, member.role, null);
  const assignments = await listUserAssignments(caller.orgId, userId);
  // Leaving on one's own needs no re-check: the member item's own condition covers the caller.
  const ownerCheck = touchesOwner(member.role, null) && userId !== caller.userId ? [callerStillOwner(caller)] : [];
  if (assignments.length + REMOVAL_ITEMS + ownerCheck.length > MAX_TRANSACTION_ITEMS) {
    throw conflict('the member has too many agent assignments to remove in one step; unassign some first');
  }
  const owners = ownerDelta(member.role, null);
  await transact([
    ...ownerCheck,
    { item: memberDelete(caller.orgId, userId, member.role), onConditionFailed: raced },
    { item: userLeave(userId, caller.orgId, now), onConditionFailed: raced },
    {
      item: orgCounters(caller.orgId, { owners, assignments: -assignments.length }),
      onConditionFailed: () => (owners < 0 ? conflict('the last org_owner cannot be removed') : notFound('organization')),
    },
    ...assignments.map((assignment) => ({ item: assignmentDelete(caller.orgId, assignment.agent_id, userId), onConditionFailed: raced })),
    {
      item: adminEventPut({
        orgId: caller.orgId,
        actor: caller.userId,
        action: 'member.remove',
        targetType: 'member',
        targetId: userId,
        details: { email: member.email, role: member.role, unassigned_agents: assignments.map((assignment) => assignment.agent_id) },
        now,
      }),
    },
  ]);
  forgetCachedCallers({ userId });
}
