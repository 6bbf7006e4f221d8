/** GET /v1/auth/me (SPEC.md §4.1, §2.7 profile). */
import { currentProfile } from '../../domain/identity/session-info.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.me, async ({ caller }) => ({ body: await currentProfile(caller) }));
