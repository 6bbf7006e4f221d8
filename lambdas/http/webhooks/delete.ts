/** DELETE /v1/webhooks/:webhook_id (docs/API.md §4.9): {success: true}. */
import { removeWebhook } from '../../domain/webhooks/manage-webhooks.js';
import { webhookRoutes } from '../../routes/route-table/webhooks.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(webhookRoutes.deleteWebhook, async ({ caller, params }) => {
  await removeWebhook(caller, params.webhook_id);
  return { body: { success: true as const } };
});
