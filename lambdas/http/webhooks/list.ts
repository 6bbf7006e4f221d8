/** GET /v1/webhooks (SPEC.md §4.9). */
import { listWebhookViews } from '../../domain/webhooks/manage-webhooks.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.listWebhooks, async ({ caller }) => ({ body: { webhooks: await listWebhookViews(caller) } }));
