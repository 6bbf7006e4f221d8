/** POST /v1/auth/token (docs/API.md §4.1, session only): an API token, shown once. */
import { issueApiToken } from '../../domain/identity/tokens.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(authRoutes.issueToken, async ({ caller, body }) => ({
  body: await issueApiToken(caller, body),
}));
