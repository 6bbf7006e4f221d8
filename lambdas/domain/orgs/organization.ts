/**
 * The caller's organization: GET /v1/organization (every role reads the organization,
 * SPEC.md §5) and PATCH /v1/organization {org_name?, description?} (org_owner,
 * security_admin) with admin event org.update in the same transaction.
 */
import { adminEventPut } from '../../store/admin-events.js';
import { identityKeys } from '../../store/identity-items.js';
import { getOrg } from '../../store/orgs.js';
import { table, transact } from '../../store/guarded-transact.js';
import type { OrgCaller } from '../auth/caller.js';
import { notFound } from '../../shared/errors.js';
import { organizationView } from './member-views.js';

export async function organization(caller: OrgCaller) {
  const org = await getOrg(caller.orgId);
  if (!org) throw notFound('organization');
  return organizationView(org);
}

export async function updateOrganization(
  caller: OrgCaller,
  changes: { org_name?: string | undefined; description?: string | null | undefined },
  now = Date.now(),
) {
  const sets = ['updated_at = :now'];
  const values: Record<string, unknown> = { ':now': now };
  const changed: Record<string, unknown> = {};
  if (changes.org_name !== undefined) {
    sets.push('org_name = :name');
    values[':name'] = changes.org_name;
    changed.org_name = changes.org_name;
  }
  if (changes.description !== undefined) {
    sets.push('description = :description');
    values[':description'] = changes.description;
    changed.description = changes.description;
  }
  await transact([
    {
      item: {
        Update: {
          TableName: table(),
          Key: identityKeys.org(caller.orgId),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: values,
        },
      },
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
