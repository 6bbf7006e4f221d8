/** GET /v1/members (docs/API.md §4.4): accepted members. */
import { members } from '../../domain/orgs/members.js';
import { memberRoutes } from '../../routes/route-table/members.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(memberRoutes.listMembers, async ({ caller }) => ({ body: { members: await members(caller) } }));
