/** GET /v1/webhooks/:webhook_id/deliveries (docs/WEBHOOKS.md): the delivery log, newest first. */
import { listDeliveryViews } from '../../domain/webhooks/delivery-log.js';
import { webhookRoutes } from '../../routes/route-table/webhooks.js';
import { defineHandler } from '../define-handler.js';

export const handler = defineHandler(webhookRoutes.listDeliveries, async ({ caller, params, query }) => ({
  body: await listDeliveryViews(caller, params.webhook_id, query),
}));
