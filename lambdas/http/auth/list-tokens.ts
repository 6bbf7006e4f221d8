/** GET /v1/auth/tokens (docs/API.md §4.1): the API tokens the caller may see. */
import { listTokens } from '../../domain/identity/token-management.js';
import { authRoutes } from '../../routes/route-table/auth.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(authRoutes.listTokens, async ({ caller, query }) => ({ body: await listTokens(caller, query) }));
