/**
 * One event of the events queue → one delivery message per active webhook of the
 * organization subscribed to it (README, Webhooks). The delivery id is derived from the
 * event's id and the webhook's id (signing.ts), so a repeated fan-out of the same event (a
 * re-sent or redelivered message) yields the same deliveries, which the attempt claim
 * (store/webhook-deliveries.ts) then makes only once.
 *
 * operation.accepted is delivered only from the message whose id the operation's receipt
 * carries as queue_message_id (domain/ledger/receipt-completion.ts): a failed submission may
 * leave surplus messages on the queue, and those announce nothing. A row without a receipt
 * reference yet is completed with this message's id first.
 */
import { readOperation } from '../../store/operations.js';
import { listWebhooks } from '../../store/webhooks.js';
import type { EventMessage, OperationAcceptedData } from '../events.js';
import { completeReceipt } from '../ledger/receipt-completion.js';
import type { Ports } from '../ports.js';
import { sendDeliveryMessage } from './delivery-message.js';
import { deliveryBody, deliveryIdFor } from './signing.js';

export type FanOutPorts = Pick<Ports, 'queue' | 'signer'>;

/** Fans `message` (received with SQS id `messageId`) out; returns the number of deliveries sent. */
export async function fanOutEvent(ports: FanOutPorts, message: EventMessage, messageId: string): Promise<number> {
  const eventId = message.event_id ?? messageId;
  const subscribed = (await listWebhooks(message.org_id)).filter(
    (webhook) => webhook.status === 'active' && webhook.events.includes(message.event),
  );
  if (subscribed.length === 0) return 0;
  if (message.event === 'operation.accepted' && !(await isReceiptMessage(ports, message.org_id, message.data as unknown as OperationAcceptedData, eventId))) {
    return 0;
  }
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

/** Whether `eventId` is (or, completing the receipt, becomes) the operation's queue_message_id. */
async function isReceiptMessage(ports: FanOutPorts, orgId: string, data: OperationAcceptedData, eventId: string): Promise<boolean> {
  const row = await readOperation(orgId, data.operation_id);
  if (!row) return false;
  if (row.queue_message_id) return row.queue_message_id === eventId;
  const completed = await completeReceipt(ports, row, { queueMessageId: eventId });
  return completed.row.queue_message_id === eventId;
}
