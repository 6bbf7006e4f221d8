/** GET /v1/members (SPEC.md §4.4): accepted members. */
import { members } from '../../domain/orgs/members.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.listMembers, async ({ caller }) => ({ body: { members: await members(caller) } }));
