/** POST /v1/webhooks (docs/API.md §4.9): HTTP 201 {webhook}. */
import { registerWebhook } from '../../domain/webhooks/manage-webhooks.js';
import { encryptor } from '../../runtime/encryptor.js';
import { webhookTransport } from '../../runtime/webhook-transport.js';
import { webhookRoutes } from '../../routes/route-table/webhooks.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(webhookRoutes.registerWebhook, async ({ caller, body }) => ({
  status: 201,
  body: { webhook: await registerWebhook({ encryptor: encryptor(), webhooks: webhookTransport() }, caller, body) },
}));
