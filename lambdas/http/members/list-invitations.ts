/** GET /v1/members/invitations (SPEC.md §4.4): pending invitations, newest first. */
import { pendingInvitations } from '../../domain/orgs/invitations.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.listPendingInvitations, async ({ caller }) => ({
  body: { invitations: await pendingInvitations(caller) },
}));
