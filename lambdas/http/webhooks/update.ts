/** PATCH /v1/webhooks/:webhook_id {status: "active"} (README, Webhooks): enables a disabled webhook. */
import { enableWebhook } from '../../domain/webhooks/manage-webhooks.js';
import { routes } from '../../routes/routes.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(routes.updateWebhook, async ({ caller, params }) => ({
  body: { webhook: await enableWebhook(caller, params.webhook_id) },
}));
