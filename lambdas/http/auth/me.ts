/** GET /v1/auth/me (docs/API.md §4.1, §2.7 profile). */
import { currentProfile } from '../../domain/identity/session-info.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(authRoutes.me, async ({ caller }) => ({ body: await currentProfile(caller) }));
