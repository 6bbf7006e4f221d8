/**
 * One event of the events queue → one delivery message per active webhook of the
 * organization subscribed to it (docs/WEBHOOKS.md). The delivery id is derived from the
 * event's id and the webhook's id (signing.ts), so a repeated fan-out of the same event (a
 * re-sent or redelivered message) yields the same deliveries, which the attempt claim
 * (store/webhook-deliveries.ts) then makes only once.
 *
 * Every event comes from a committed fact (docs/EVENTS.md: the table's stream is the outbox),
 * and its event_id is the same on every re-send: for operation.accepted, the receipt's
 * queue_message_id.
 */
import { oncePerKey } from '../../shared/once.js';
import { listWebhooks, type WebhookItem } from '../../store/webhooks.js';
import type { EventMessage } from '../events.js';
import type { Ports } from '../ports.js';
import { sendDeliveryMessage } from './delivery-message.js';
import { deliveryBody, deliveryIdFor } from './signing.js';

export type FanOutPorts = Pick<Ports, 'queue'>;

/** An organization's webhooks, as one batch of events reads them. */
type WebhookLists = (orgId: string) => Promise<WebhookItem[]>;

/**
 * Reads each organization's webhooks once for a batch of events (docs/COST.md, Hot path):
 * every accepted operation is an event, and a Query per event doubled the table requests an
 * operation causes. The events of a batch are all on the queue when it is read, so reading
 * the list once for them sees every webhook a read per event would have seen at that moment.
 */
export function webhookListsOfBatch(): WebhookLists {
  // A failed read fails the events that asked for it (they come back); the next batch reads again.
  return oncePerKey(listWebhooks);
}

/** Fans `message` out; returns the number of deliveries sent. */
export async function fanOutEvent(ports: FanOutPorts, message: EventMessage, webhooksOf: WebhookLists = listWebhooks): Promise<number> {
  const eventId = message.event_id;
  const subscribed = (await webhooksOf(message.org_id)).filter(
    (webhook) => webhook.status === 'active' && webhook.events.includes(message.event),
  );
  if (subscribed.length === 0) return 0;
  await Promise.all(
    subscribed.map((webhook) => {
      const deliveryId = deliveryIdFor(eventId, webhook.webhook_id);
      const body = deliveryBody({ event: message.event, delivery_id: deliveryId, org_id: message.org_id, timestamp: message.timestamp, data: message.data });
      return sendDeliveryMessage(
        ports.queue,
        { delivery_id: deliveryId, webhook_id: webhook.webhook_id, org_id: message.org_id, event: message.event, event_id: eventId, body, created_at: message.timestamp, attempt: 1 },
        0,
      );
    }),
  );
  return subscribed.length;
}
