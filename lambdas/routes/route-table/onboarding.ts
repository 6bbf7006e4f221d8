/** Onboarding (docs/API.md §4.2): any authenticated user, once. */
import { route } from '../route-spec.js';
import { createOrgBody, onboardingStatusResponse, orgCreatedResponse } from '../schemas/onboarding.js';

export const onboardingRoutes = {
  onboardingStatus: route({
    id: 'OnboardingStatus',
    method: 'GET',
    path: '/v1/onboarding/status',
    handler: 'onboarding/status',
    auth: 'user',
    summary: 'Whether the caller has completed onboarding, and their organization.',
    response: { status: 200, body: onboardingStatusResponse },
    uses: ['table:read'],
  }),
  onboardPersonal: route({
    id: 'OnboardPersonal',
    method: 'POST',
    path: '/v1/onboarding/personal',
    handler: 'onboarding/personal',
    auth: 'user',
    summary: 'Creates a workspace named Personal Workspace owned by the caller; admin event org.create.',
    response: { status: 201, body: orgCreatedResponse },
    uses: ['table:write'],
  }),
  onboardOrganization: route({
    id: 'OnboardOrganization',
    method: 'POST',
    path: '/v1/onboarding/organization',
    handler: 'onboarding/organization',
    auth: 'user',
    summary: 'Creates a named organization owned by the caller, with optional invitations; admin events org.create, member.invite.',
    request: { body: createOrgBody },
    response: { status: 201, body: orgCreatedResponse },
    uses: ['table:write'],
  }),
};
