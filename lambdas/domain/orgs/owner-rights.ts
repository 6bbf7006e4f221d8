/**
 * Who may make or unmake an org_owner (SECURITY.md, Rules the service enforces). docs/API.md §5 gives security_admin
 * everything org_owner has but creating organizations; taken literally that includes
 * granting org_owner, so a security_admin could promote themselves, then demote and remove
 * the creator. The rules that close it:
 *
 * - only an org_owner grants org_owner (role change or invitation) or takes it away (role
 *   change or removal);
 * - nobody changes their own role;
 * - the last org_owner can be neither demoted nor removed (members.ts, owner_count).
 *
 * The caller's role was read at authentication; `callerStillOwner` re-checks it inside the
 * write's transaction, so an owner demoted concurrently cannot still act as one.
 */
import { memberHolds } from '../../store/orgs.js';
import type { GuardedItem } from '../../store/guarded-transact.js';
import type { OrgCaller } from '../auth/caller.js';
import { LedgerError } from '../../shared/errors.js';
import type { Role } from '../../shared/roles.js';

const onlyOwners = (what: string) => new LedgerError('FORBIDDEN', `only an org_owner may ${what}`);

/** FORBIDDEN unless the caller may give `userId` (holding `from`, or null for a newcomer) the role `to` (null: removal). */
export function assertMayChangeMember(caller: OrgCaller, userId: string | null, from: Role | null, to: Role | null): void {
  if (userId === caller.userId && to !== null) throw new LedgerError('FORBIDDEN', 'nobody may change their own role');
  if (caller.role === 'org_owner') return;
  if (to === 'org_owner') throw onlyOwners('grant org_owner');
  if (from === 'org_owner') throw onlyOwners(to === null ? 'remove an org_owner' : 'take org_owner away');
}

/** Whether a change touches org_owner, and so needs the caller to still be one when it commits. */
export function touchesOwner(from: Role | null, to: Role | null): boolean {
  return from === 'org_owner' || to === 'org_owner';
}

/** The transaction item re-checking that the caller is still an org_owner. */
export function callerStillOwner(caller: OrgCaller): GuardedItem {
  return { item: memberHolds(caller.orgId, caller.userId, 'org_owner'), onConditionFailed: () => onlyOwners('change an org_owner') };
}
