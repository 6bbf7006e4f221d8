/**
 * The delivery log and the manual sends (docs/WEBHOOKS.md): a webhook's deliveries newest
 * first; redeliver (one more attempt of a logged delivery, now, outside the retry schedule);
 * test (a `ping` delivery, now). Manual attempts are logged like scheduled ones; a success
 * ends the webhook's run of failures, a failure does not count towards disabling it.
 */
import { randomUUID } from 'node:crypto';
import { getDelivery, listDeliveries, logPosition, recordManualAttempt, type NewDelivery } from '../../store/webhook-deliveries.js';
import { conflict, notFound } from '../../shared/errors.js';
import { decodePageCursor, encodePageCursor } from '../../shared/page-cursor.js';
import type { OrgCaller } from '../auth/caller.js';
import { noteDeliveryOutcome } from './failure-run.js';
import { findWebhook } from './manage-webhooks.js';
import { sendAttempt, type AttemptPorts } from './send-attempt.js';
import { deliveryBody } from './signing.js';
import { deliveryView, type DeliveryView } from './webhook-view.js';

/** Opaque to clients: the log position of the last delivery of the previous page (shared/page-cursor.ts). */
const CURSOR_PREFIX = 'd1.';

export async function listDeliveryViews(
  caller: OrgCaller,
  webhookId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ deliveries: DeliveryView[]; cursor?: string }> {
  const before = page.cursor === undefined ? undefined : decodePageCursor(CURSOR_PREFIX, page.cursor);
  await findWebhook(caller, webhookId);
  const { deliveries, more } = await listDeliveries(caller.orgId, webhookId, page.limit, before);
  const last = deliveries.at(-1);
  return { deliveries: deliveries.map(deliveryView), ...(more && last ? { cursor: encodePageCursor(CURSOR_PREFIX, logPosition(last)) } : {}) };
}

async function sendManually(ports: AttemptPorts, caller: OrgCaller, webhookId: string, delivery: NewDelivery): Promise<DeliveryView> {
  const webhook = await findWebhook(caller, webhookId);
  const { record, succeeded } = await sendAttempt(ports, webhook, delivery, true);
  if (!(await recordManualAttempt(delivery, record, succeeded))) {
    throw conflict('this delivery has as many attempts as it may keep; it cannot be redelivered again');
  }
  if (succeeded) await noteDeliveryOutcome(webhook, true, Date.now());
  const stored = await getDelivery(caller.orgId, webhookId, delivery.delivery_id);
  if (!stored) throw new Error(`delivery ${delivery.delivery_id} vanished after its attempt was recorded`);
  return deliveryView(stored);
}

/** POST /v1/webhooks/:id/deliveries/:delivery_id/redeliver: the same body (and delivery id) again, now. */
export async function redeliver(ports: AttemptPorts, caller: OrgCaller, webhookId: string, deliveryId: string): Promise<DeliveryView> {
  await findWebhook(caller, webhookId);
  const delivery = await getDelivery(caller.orgId, webhookId, deliveryId);
  if (!delivery) throw notFound('delivery');
  return sendManually(ports, caller, webhookId, delivery);
}

/** POST /v1/webhooks/:id/test: a `ping` delivery with data {webhook_id}, sent now. */
export async function pingWebhook(ports: AttemptPorts, caller: OrgCaller, webhookId: string, now = Date.now()): Promise<DeliveryView> {
  const deliveryId = randomUUID();
  const body = deliveryBody({ event: 'ping', delivery_id: deliveryId, org_id: caller.orgId, timestamp: now, data: { webhook_id: webhookId } });
  return sendManually(ports, caller, webhookId, {
    delivery_id: deliveryId,
    webhook_id: webhookId,
    org_id: caller.orgId,
    event: 'ping',
    event_id: deliveryId,
    body,
    created_at: now,
  });
}
