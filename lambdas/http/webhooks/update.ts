/** PATCH /v1/webhooks/:webhook_id {status: "active" | "disabled"} (README, Webhooks): enables or disables a webhook. */
import { setWebhookStatus } from '../../domain/webhooks/manage-webhooks.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.updateWebhook, async ({ caller, params, body }) => ({
  body: { webhook: await setWebhookStatus(caller, params.webhook_id, body.status) },
}));
