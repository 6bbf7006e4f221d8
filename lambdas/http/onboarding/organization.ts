/** POST /v1/onboarding/organization (docs/API.md §4.2): HTTP 201 {org_id}. */
import { createOrganization } from '../../domain/orgs/onboarding.js';
import { onboardingRoutes } from '../../routes/route-table/onboarding.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(onboardingRoutes.onboardOrganization, async ({ caller, body }) => ({
  body: await createOrganization(caller, {
    kind: 'organization',
    orgName: body.org_name,
    ...(body.description === undefined ? {} : { description: body.description }),
    ...(body.invitations === undefined ? {} : { invitations: body.invitations }),
  }),
}));
