/** GET /v1/webhooks/:webhook_id (docs/WEBHOOKS.md). */
import { findWebhook } from '../../domain/webhooks/manage-webhooks.js';
import { webhookView } from '../../domain/webhooks/webhook-view.js';
import { webhookRoutes } from '../../routes/route-table/webhooks.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(webhookRoutes.getWebhook, async ({ caller, params }) => ({
  body: { webhook: webhookView(await findWebhook(caller, params.webhook_id)) },
}));
