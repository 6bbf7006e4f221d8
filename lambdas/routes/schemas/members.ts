/** Bodies of the organization, member, invitation and assignment endpoints (docs/API.md §2.6, §2.8, §2.9, §4.4). */
import * as z from 'zod';
import { unixMs } from './common.js';
import { roleSchema } from './auth.js';
import { invitationInput } from './onboarding.js';

const id = z.string().min(1).max(256);

const organizationSchema = z
  .object({
    org_id: z.string(),
    org_name: z.string(),
    description: z.string().nullable(),
    created_at: unixMs,
    updated_at: unixMs,
    created_by: z.string(),
    /** whether a new agent key must carry its proof of possession (docs/API.md §2.7) */
    require_key_proof: z.boolean(),
    /** the longest lifetime a new API token may have, in seconds, or null: no cap (docs/API.md §2.7) */
    max_token_ttl_seconds: z.number().int().min(1).max(31_536_000).nullable(),
  })
  .meta({ id: 'Organization' });
export const organizationResponse = z.object({ organization: organizationSchema });
export const updateOrganizationBody = z
  .object({
    org_name: z.string().trim().min(1).max(128).optional(),
    description: z.string().max(512).nullable().optional(),
    require_key_proof: z.boolean().optional(),
    max_token_ttl_seconds: z.number().int().min(1).max(31_536_000).nullable().optional(),
  })
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'give org_name, description, require_key_proof or max_token_ttl_seconds',
  });

/** docs/API.md §2.8. */
const memberSchema = z
  .object({
    member_id: z.string(),
    user_id: z.string(),
    role: roleSchema,
    joined_at: z.iso.datetime(),
    email: z.string(),
    display_name: z.string(),
  })
  .meta({ id: 'Member' });
export const membersResponse = z.object({ members: z.array(memberSchema) });
export const memberResponse = z.object({ member: memberSchema });
export const memberParams = z.object({ user_id: id });
export const changeRoleBody = z.object({ role: roleSchema });

/** docs/API.md §2.9. */
const invitationSchema = z
  .object({
    invitation_id: z.string(),
    email: z.string(),
    role: roleSchema,
    status: z.enum(['pending', 'accepted', 'cancelled']),
    inviter_id: z.string(),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
  })
  .meta({ id: 'Invitation' });
/** GET /v1/invitations adds which organization invites (the invitee is not a member yet). */
const receivedInvitationSchema = invitationSchema.extend({ org_id: z.string(), org_name: z.string() });
export const invitationsResponse = z.object({ invitations: z.array(invitationSchema) });
export const receivedInvitationsResponse = z.object({ invitations: z.array(receivedInvitationSchema) });
export const invitationResponse = z.object({ invitation: invitationSchema });
export const inviteBody = invitationInput;
export const invitationParams = z.object({ invitation_id: id });
export const acceptResponse = z.object({ org_id: z.string(), role: roleSchema });

export const deletedResponse = z.object({ deleted: z.literal(true) });

/** docs/API.md §2.6. */
export const assignmentSchema = z
  .object({ id: z.string(), agent_id: z.string(), user_id: z.string(), org_id: z.string(), assigned_by: z.string(), created_at: unixMs })
  .meta({ id: 'Assignment' });
export const agentAssignmentsResponse = z.object({
  assignments: z.array(assignmentSchema.extend({ email: z.string(), display_name: z.string() })),
});
export const userAgentsResponse = z.object({
  agents: z.array(
    assignmentSchema.extend({ agent_display_name: z.string(), integration_type: z.string(), agent_status: z.string() }),
  ),
});
export const agentParams = z.object({ agent_id: id });
export const assignmentParams = z.object({ agent_id: id, user_id: id });
export const assignBody = z.object({ user_id: id });
