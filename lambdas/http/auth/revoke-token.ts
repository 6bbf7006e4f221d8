/** DELETE /v1/auth/tokens/:token_id (docs/API.md §4.1): revokes an API token at once. */
import { revokeToken } from '../../domain/identity/token-management.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(authRoutes.revokeToken, async ({ caller, params }) => ({
  body: { token: await revokeToken(caller, params.token_id) },
}));
