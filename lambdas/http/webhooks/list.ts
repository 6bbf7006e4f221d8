/** GET /v1/webhooks (docs/API.md §4.9). */
import { listWebhookViews } from '../../domain/webhooks/manage-webhooks.js';
import { webhookRoutes } from '../../routes/route-table/webhooks.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(webhookRoutes.listWebhooks, async ({ caller }) => ({ body: { webhooks: await listWebhookViews(caller) } }));
