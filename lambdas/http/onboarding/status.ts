/** GET /v1/onboarding/status (docs/API.md §4.2). */
import { onboardingStatus } from '../../domain/orgs/onboarding.js';
import { onboardingRoutes } from '../../routes/route-table/onboarding.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(onboardingRoutes.onboardingStatus, async ({ caller }) => ({ body: await onboardingStatus(caller) }));
