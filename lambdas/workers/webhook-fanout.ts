/**
 * Consumer of the events queue (docs/WEBHOOKS.md): each event becomes one message per
 * subscribed webhook on the deliveries queue (domain/webhooks/fan-out.ts), each organization's
 * webhooks read once per batch. It makes no HTTP request itself, so no endpoint can slow it down.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { EventMessage } from '../domain/events.js';
import { fanOutEvent, webhookListsOfBatch } from '../domain/webhooks/fan-out.js';
import { logger } from '../logger.js';
import { queue } from '../runtime/queue.js';
import { defineWorker } from './define-worker.js';
import { handleBatch } from './queue-batch.js';

export const handler = defineWorker('WebhookFanout', (event: SQSEvent): Promise<SQSBatchResponse> => {
  const webhooksOf = webhookListsOfBatch();
  return handleBatch(event, async (record) => {
    let message: EventMessage;
    try {
      message = JSON.parse(record.body) as EventMessage;
    } catch {
      // Not ours to fix by retrying: drop it, loudly.
      logger.error('events message is not JSON; dropped', { message_id: record.messageId });
      return true;
    }
    const deliveries = await fanOutEvent({ queue: queue() }, message, webhooksOf);
    if (deliveries > 0) logger.debug('event fanned out', { event: message.event, deliveries });
    return true;
  });
});
