/** GET /v1/members/invitations (docs/API.md §4.4): pending invitations, newest first. */
import { pendingInvitations } from '../../domain/orgs/invitations.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.listPendingInvitations, async ({ caller }) => ({
  body: { invitations: await pendingInvitations(caller) },
}));
