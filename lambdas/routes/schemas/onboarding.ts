/** Bodies of the onboarding endpoints (docs/API.md §4.2, §8). */
import * as z from 'zod';
import { roleSchema } from './auth.js';

export const onboardingStatusResponse = z.object({
  onboarding_completed: z.union([z.literal(0), z.literal(1)]),
  org_id: z.string().nullable(),
});

export const orgCreatedResponse = z.object({ org_id: z.string() });

/** docs/API.md §8: invitation email up to 256 characters. */
export const invitationInput = z.object({ email: z.email().max(256), role: roleSchema });

/**
 * At most 20 invitations at creation: they are written in the same transaction as the
 * organization (DynamoDB allows 100 items; each invitation is 2 with its admin event).
 * More can be sent afterwards with POST /v1/members/invitations.
 */
const MAX_ONBOARDING_INVITATIONS = 20;

export const createOrgBody = z.object({
  org_name: z.string().trim().min(1).max(128),
  description: z.string().max(512).optional(),
  invitations: z.array(invitationInput).max(MAX_ONBOARDING_INVITATIONS).optional(),
});
