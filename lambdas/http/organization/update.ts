/** PATCH /v1/organization (org_owner, security_admin) → org.update (domain/orgs/organization.ts). */
import { updateOrganization } from '../../domain/orgs/organization.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.updateOrganization, async ({ caller, body }) => ({
  body: { organization: await updateOrganization(caller, body) },
}));
