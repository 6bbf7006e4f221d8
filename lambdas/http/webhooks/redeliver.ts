/** POST /v1/webhooks/:webhook_id/deliveries/:delivery_id/redeliver (docs/WEBHOOKS.md). */
import { redeliver } from '../../domain/webhooks/delivery-log.js';
import { encryptor } from '../../runtime/encryptor.js';
import { webhookTransport } from '../../runtime/webhook-transport.js';
import { webhookRoutes } from '../../routes/route-table/webhooks.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(webhookRoutes.redeliver, async ({ caller, params }) => ({
  body: { delivery: await redeliver({ encryptor: encryptor(), webhooks: webhookTransport() }, caller, params.webhook_id, params.delivery_id) },
}));
