/**
 * One message of the deliveries queue: waits out the rest of its backoff, claims its
 * attempt, sends it, records the outcome, and schedules the next attempt or, after the last
 * one, marks the delivery `failed` and moves its message to the dead-letter queue (docs/WEBHOOKS.md,
 * Retries).
 *
 * Order, so that a crash anywhere loses no delivery: the next message (or the dead letter)
 * is sent before the outcome is recorded. A crash in between makes SQS deliver this message
 * again; its attempt is still unrecorded, so once the lease runs out the attempt is made
 * again (at least once), and the surplus message the second run sends finds its attempt
 * taken and is dropped.
 */
import { claimScheduledAttempt, recordScheduledAttempt } from '../../store/webhook-deliveries.js';
import { oncePerKey } from '../../shared/once.js';
import { getWebhook, type WebhookItem } from '../../store/webhooks.js';
import { MetricNames, MetricUnit, recordMetrics } from '../../metrics.js';
import type { Ports } from '../ports.js';
import { sendDeliveryMessage, type DeliveryMessage } from './delivery-message.js';
import { noteDeliveryOutcome } from './failure-run.js';
import { MAX_SCHEDULED_ATTEMPTS, retryDelaySeconds } from './retry-schedule.js';
import { notSentRecord, sendAttempt } from './send-attempt.js';

/** How long a claim on an attempt lasts: longer than one attempt (10 s) and its writes. */
const ATTEMPT_LEASE_MS = 60_000;

/** `retry_later`: the attempt is claimed by a live worker; the message must come back later. */
type DeliveryResult = 'done' | 'retry_later';

type ScheduledDeliveryPorts = Pick<Ports, 'queue' | 'encryptor' | 'webhooks'>;

/** A webhook (org_id, webhook_id), as one batch of delivery messages reads it. */
type WebhookOf = (orgId: string, webhookId: string) => Promise<WebhookItem | undefined>;

/**
 * Reads each webhook once for a batch of delivery messages (docs/COST.md, Hot path): every
 * attempt needs its webhook's status, secret and failure run, and a batch read off a backlog
 * holds many attempts for the same few webhooks. The attempts of a batch start at once, so
 * each would read the item at the same moment: one read serves them all. A webhook changed
 * after the read is seen by the next batch, as it was by an attempt already under way.
 */
export function webhooksOfBatch(): WebhookOf {
  return oncePerKey(getWebhook);
}

export async function processDeliveryMessage(ports: ScheduledDeliveryPorts, message: DeliveryMessage, webhookOf: WebhookOf = getWebhook): Promise<DeliveryResult> {
  if (message.wait_seconds > 0) {
    await sendDeliveryMessage(ports.queue, message, message.wait_seconds);
    return 'done';
  }
  const webhook = await webhookOf(message.org_id, message.webhook_id);
  // A deleted webhook takes its pending deliveries with it.
  if (!webhook) return 'done';
  const claimedAt = Date.now();
  const claim = await claimScheduledAttempt(message, message.attempt, claimedAt, claimedAt + ATTEMPT_LEASE_MS);
  if (claim === 'busy') return 'retry_later';
  if (claim === 'obsolete') return 'done';

  const record = (input: Omit<Parameters<typeof recordScheduledAttempt>[0], 'orgId' | 'webhookId' | 'deliveryId' | 'attempt'>) =>
    recordScheduledAttempt({ orgId: message.org_id, webhookId: message.webhook_id, deliveryId: message.delivery_id, attempt: message.attempt, ...input });

  if (webhook.status !== 'active') {
    // Deliberately not sent, and not dead-lettered: redeliver sends it once the webhook is enabled.
    await record({ record: notSentRecord('the webhook is disabled', Date.now()), status: 'failed', nextAttemptAt: null });
    return 'done';
  }

  const { record: attempt, succeeded } = await sendAttempt(ports, webhook, message, false);
  const finishedAt = Date.now();
  recordMetrics(
    [
      { name: MetricNames.WebhookAttempts, unit: MetricUnit.Count, value: 1 },
      { name: MetricNames.WebhookAttemptLatency, unit: MetricUnit.Milliseconds, value: attempt.latency_ms },
    ],
    { outcome: succeeded ? 'succeeded' : attempt.error?.startsWith('refused') ? 'refused' : 'failed' },
  );
  if (succeeded) {
    await record({ record: attempt, status: 'succeeded', nextAttemptAt: null });
  } else {
    const waitSeconds = message.attempt < MAX_SCHEDULED_ATTEMPTS ? retryDelaySeconds(message.attempt) : null;
    if (waitSeconds !== null) {
      await sendDeliveryMessage(ports.queue, { ...message, attempt: message.attempt + 1 }, waitSeconds);
      await record({ record: attempt, status: 'pending', nextAttemptAt: finishedAt + waitSeconds * 1000 });
    } else {
      // The message that would carry the next attempt goes to the dead-letter queue: an
      // operator's redrive from there makes one more attempt of a failed delivery.
      await ports.queue.sendToDeadLetters('deliveries', { body: { ...message, attempt: message.attempt + 1, wait_seconds: 0 } satisfies DeliveryMessage });
      recordMetrics([{ name: MetricNames.WebhookDeliveriesFailed, unit: MetricUnit.Count, value: 1 }]);
      await record({ record: attempt, status: 'failed', nextAttemptAt: null });
    }
  }
  await noteDeliveryOutcome(webhook, succeeded, finishedAt);
  return 'done';
}
