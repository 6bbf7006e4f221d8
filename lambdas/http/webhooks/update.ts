/** PATCH /v1/webhooks/:webhook_id {status: "active" | "disabled"} (docs/WEBHOOKS.md): enables or disables a webhook. */
import { setWebhookStatus } from '../../domain/webhooks/manage-webhooks.js';
import { webhookRoutes } from '../../routes/route-table/webhooks.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(webhookRoutes.updateWebhook, async ({ caller, params, body }) => ({
  body: { webhook: await setWebhookStatus(caller, params.webhook_id, body.status) },
}));
