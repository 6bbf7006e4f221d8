/**
 * The caller's organization: GET /v1/organization (every role reads the organization,
 * docs/API.md §5) and PATCH /v1/organization {org_name?, description?, require_key_proof?,
 * max_token_ttl_seconds?}
 * (org_owner, security_admin) with admin event org.update, naming what changed, in the same
 * transaction.
 */
import { adminEventPut } from '../../store/admin-events.js';
import { getOrg, orgUpdate, type OrgChanges } from '../../store/orgs.js';
import { transact } from '../../store/guarded-transact.js';
import type { OrgCaller } from '../auth/caller.js';
import { notFound } from '../../shared/errors.js';
import { organizationView } from './member-views.js';

export async function organization(caller: OrgCaller) {
  const org = await getOrg(caller.orgId);
  if (!org) throw notFound('organization');
  return organizationView(org);
}

export async function updateOrganization(caller: OrgCaller, changes: OrgChanges, now = Date.now()) {
  const changed: Record<string, unknown> = {};
  if (changes.org_name !== undefined) changed.org_name = changes.org_name;
  if (changes.description !== undefined) changed.description = changes.description;
  if (changes.require_key_proof !== undefined) changed.require_key_proof = changes.require_key_proof;
  if (changes.max_token_ttl_seconds !== undefined) changed.max_token_ttl_seconds = changes.max_token_ttl_seconds;
  await transact([
    {
      item: orgUpdate(caller.orgId, changes, now),
      onConditionFailed: () => notFound('organization'),
    },
    {
      item: adminEventPut({
        orgId: caller.orgId,
        actor: caller.userId,
        action: 'org.update',
        targetType: 'organization',
        targetId: caller.orgId,
        details: changed,
        now,
      }),
    },
  ]);
  return organization(caller);
}
