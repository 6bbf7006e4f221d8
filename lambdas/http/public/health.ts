/** GET /v1/health (docs/API.md §4.11): liveness only; touches no dependency. */
import { config } from '../../config.js';
import { publicRoutes } from '../../routes/route-table/public.js';
import { definePublicHandler } from '../define-public-handler.js';

export const handler = definePublicHandler(publicRoutes.health, async () => ({
  body: { status: 'ok' as const, version: config().version },
}));
