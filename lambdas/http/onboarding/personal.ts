/** POST /v1/onboarding/personal (docs/API.md §4.2): HTTP 201 {org_id}, a workspace named Personal Workspace. */
import { PERSONAL_WORKSPACE_NAME, createOrganization } from '../../domain/orgs/onboarding.js';
import { onboardingRoutes } from '../../routes/route-table/onboarding.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(onboardingRoutes.onboardPersonal, async ({ caller }) => ({
  body: await createOrganization(caller, { kind: 'personal', orgName: PERSONAL_WORKSPACE_NAME }),
}));
