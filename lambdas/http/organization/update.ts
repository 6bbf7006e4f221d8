/** PATCH /v1/organization {org_name?, description?} (org_owner, security_admin) → org.update. */
import { updateOrganization } from '../../domain/orgs/organization.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.updateOrganization, async ({ caller, body }) => ({
  body: { organization: await updateOrganization(caller, body) },
}));
