/** GET /v1/organization: the caller's organization (every role, docs/API.md §5 "read organization"). */
import { organization } from '../../domain/orgs/organization.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.getOrganization, async ({ caller }) => ({
  body: { organization: await organization(caller) },
}));
