/** POST /v1/webhooks/:webhook_id/test (docs/WEBHOOKS.md): a ping delivery, sent now. */
import { pingWebhook } from '../../domain/webhooks/delivery-log.js';
import { encryptor } from '../../runtime/encryptor.js';
import { webhookTransport } from '../../runtime/webhook-transport.js';
import { webhookRoutes } from '../../routes/route-table/webhooks.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(webhookRoutes.testWebhook, async ({ caller, params }) => ({
  body: { delivery: await pingWebhook({ encryptor: encryptor(), webhooks: webhookTransport() }, caller, params.webhook_id) },
}));
