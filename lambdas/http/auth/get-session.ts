/** GET /api/auth/get-session (docs/API.md §4.1): the session and user, or HTTP 200 with body null. */
import { currentSession } from '../../domain/identity/session-info.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { defineHandler } from '../define-handler.js';
import { presentedHash } from './presented-hash.js';

export const handler = defineHandler(authRoutes.getSession, async ({ caller, event }) => ({
  body: await currentSession(caller, presentedHash(event)),
}));
