/** GET /v1/health (SPEC.md §4.10): liveness only; touches no dependency. */
import { config } from '../../config.js';
import { routes } from '../../routes/routes.js';
import { definePublicHandler } from '../define-public-handler.js';

export const handler = definePublicHandler(routes.health, async () => ({
  body: { status: 'ok' as const, version: config().version },
}));
