/** GET /v1/invitations (any authenticated user): pending invitations addressed to the caller's email. */
import { receivedInvitations } from '../../domain/orgs/invitations.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.receivedInvitations, async ({ caller }) => ({
  body: { invitations: await receivedInvitations(caller) },
}));
