/** PATCH /v1/webhooks/:webhook_id {status: "active"} (README, Webhooks): enables a disabled webhook. */
import { enableWebhook } from '../../domain/webhooks/manage-webhooks.js';
import { webhookRoutes } from '../../routes/route-table/webhooks.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(webhookRoutes.updateWebhook, async ({ caller, params }) => ({
  body: { webhook: await enableWebhook(caller, params.webhook_id) },
}));
