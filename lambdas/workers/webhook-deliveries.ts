/**
 * Consumer of the deliveries queue (docs/WEBHOOKS.md): each message is one scheduled attempt
 * of one delivery (domain/webhooks/scheduled-delivery.ts). A batch's attempts run at once,
 * each with its own 10 s deadline, so a hanging endpoint holds up no other delivery; each
 * webhook is read once per batch.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseDeliveryMessage } from '../domain/webhooks/delivery-message.js';
import { processDeliveryMessage, webhooksOfBatch } from '../domain/webhooks/scheduled-delivery.js';
import { logger } from '../logger.js';
import { encryptor } from '../runtime/encryptor.js';
import { queue } from '../runtime/queue.js';
import { webhookTransport } from '../runtime/webhook-transport.js';
import { defineWorker } from './define-worker.js';
import { handleBatch } from './queue-batch.js';

export const handler = defineWorker('WebhookDeliveries', (event: SQSEvent): Promise<SQSBatchResponse> => {
  const webhookOf = webhooksOfBatch();
  return handleBatch(event, async (record) => {
    const message = parseDeliveryMessage(record.body);
    if (!message) {
      logger.error('deliveries message has not the shape of one; dropped', { message_id: record.messageId });
      return true;
    }
    const result = await processDeliveryMessage({ queue: queue(), encryptor: encryptor(), webhooks: webhookTransport() }, message, webhookOf);
    return result === 'done';
  });
});
