/**
 * Webhook endpoints (docs/API.md §4.9: org_owner and security_admin) and the ones beyond it
 * docs/WEBHOOKS.md documents: read one, re-enable, test, delivery log and redeliver.
 */
import { ADMINS } from '../../shared/roles.js';
import { route } from '../route-spec.js';
import {
  deliveryListResponse,
  deliveryParams,
  deliveryResponse,
  EGRESS_POLICY,
  listDeliveriesQuery,
  registerWebhookBody,
  successResponse,
  updateWebhookBody,
  webhookListResponse,
  webhookParams,
  webhookResponse,
} from '../schemas/webhooks.js';

/** Sending a delivery now: up to 10 s for the endpoint, plus the writes around it. */
const SENDS_NOW_TIMEOUT_SECONDS = 20;

export const webhookRoutes = {
  listWebhooks: route({
    id: 'ListWebhooks',
    method: 'GET',
    path: '/v1/webhooks',
    handler: 'webhooks/list',
    auth: ADMINS,
    summary: "The organization's webhooks (never their secrets).",
    response: { status: 200, body: webhookListResponse },
    uses: ['table:read'],
  }),
  registerWebhook: route({
    id: 'RegisterWebhook',
    method: 'POST',
    path: '/v1/webhooks',
    handler: 'webhooks/register',
    auth: ADMINS,
    summary: 'Registers an endpoint for events of docs/API.md §6.1; the secret (16-256 characters) is stored encrypted. Admin event webhook.register.',
    description: EGRESS_POLICY,
    request: { body: registerWebhookBody },
    response: { status: 201, body: webhookResponse },
    uses: ['table:write', 'secrets:encrypt'],
  }),
  getWebhook: route({
    id: 'GetWebhook',
    method: 'GET',
    path: '/v1/webhooks/{webhook_id}',
    handler: 'webhooks/get',
    auth: ADMINS,
    summary: 'One webhook.',
    request: { params: webhookParams },
    response: { status: 200, body: webhookResponse },
    uses: ['table:read'],
  }),
  updateWebhook: route({
    id: 'UpdateWebhook',
    method: 'PATCH',
    path: '/v1/webhooks/{webhook_id}',
    handler: 'webhooks/update',
    auth: ADMINS,
    summary:
      '{status: "disabled"} stops deliveries (pending retries end failed, unsent); {status: "active"} enables the webhook again, ' +
      'also after the service disabled it because every delivery failed for 3 days. Admin event webhook.disable or webhook.enable.',
    request: { params: webhookParams, body: updateWebhookBody },
    response: { status: 200, body: webhookResponse },
    uses: ['table:write'],
  }),
  deleteWebhook: route({
    id: 'DeleteWebhook',
    method: 'DELETE',
    path: '/v1/webhooks/{webhook_id}',
    handler: 'webhooks/delete',
    auth: ADMINS,
    summary: 'Deletes a webhook; its pending deliveries are dropped. Admin event webhook.delete.',
    request: { params: webhookParams },
    response: { status: 200, body: successResponse },
    uses: ['table:write'],
  }),
  testWebhook: route({
    id: 'TestWebhook',
    method: 'POST',
    path: '/v1/webhooks/{webhook_id}/test',
    handler: 'webhooks/test',
    auth: ADMINS,
    summary: 'Sends a `ping` delivery now and answers its outcome (also logged).',
    request: { params: webhookParams },
    response: { status: 200, body: deliveryResponse },
    uses: ['table:write', 'secrets:decrypt'],
    timeoutSeconds: SENDS_NOW_TIMEOUT_SECONDS,
  }),
  listDeliveries: route({
    id: 'ListWebhookDeliveries',
    method: 'GET',
    path: '/v1/webhooks/{webhook_id}/deliveries',
    handler: 'webhooks/deliveries',
    auth: ADMINS,
    summary: "The webhook's deliveries, newest first, with every attempt; paged with limit (1-100, default 20) and cursor. Entries expire after 30 days.",
    request: { params: webhookParams, query: listDeliveriesQuery },
    response: { status: 200, body: deliveryListResponse },
    uses: ['table:read'],
  }),
  redeliver: route({
    id: 'RedeliverWebhookDelivery',
    method: 'POST',
    path: '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver',
    handler: 'webhooks/redeliver',
    auth: ADMINS,
    summary: 'Sends a logged delivery again now (same body and delivery id), outside the retry schedule; answers the delivery with the new attempt.',
    request: { params: deliveryParams },
    response: { status: 200, body: deliveryResponse },
    uses: ['table:write', 'secrets:decrypt'],
    timeoutSeconds: SENDS_NOW_TIMEOUT_SECONDS,
  }),
};
