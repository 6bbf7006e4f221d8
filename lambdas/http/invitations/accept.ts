/** POST /v1/invitations/:invitation_id/accept: join with the invited role, onboarding completed (409 when already in an organization). */
import { acceptInvitation } from '../../domain/orgs/invitations.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.acceptInvitation, async ({ caller, params }) => ({
  body: await acceptInvitation(caller, params.invitation_id),
}));
