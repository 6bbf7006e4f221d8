/** GET /v1/organization: the caller's organization (every role, SPEC.md §5 "read organization"). */
import { organization } from '../../domain/orgs/organization.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.getOrganization, async ({ caller }) => ({
  body: { organization: await organization(caller) },
}));
