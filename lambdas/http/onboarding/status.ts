/** GET /v1/onboarding/status (SPEC.md §4.2). */
import { onboardingStatus } from '../../domain/orgs/onboarding.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.onboardingStatus, async ({ caller }) => ({ body: await onboardingStatus(caller) }));
