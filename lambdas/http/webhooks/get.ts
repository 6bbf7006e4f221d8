/** GET /v1/webhooks/:webhook_id (README, Webhooks). */
import { findWebhook } from '../../domain/webhooks/manage-webhooks.js';
import { webhookView } from '../../domain/webhooks/webhook-view.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.getWebhook, async ({ caller, params }) => ({
  body: { webhook: webhookView(await findWebhook(caller, params.webhook_id)) },
}));
