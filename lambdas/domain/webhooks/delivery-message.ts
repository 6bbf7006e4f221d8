/**
 * Messages on the `deliveries` queue: one per scheduled attempt of one (event, webhook)
 * delivery. Each carries everything the attempt needs (and everything an operator needs to
 * read a dead letter), so one endpoint's retries never wait on, or hold up, another's.
 */
import { MAX_DELAY_SECONDS, type Queue } from '../ports.js';
import type { NewDelivery } from '../../store/webhook-deliveries.js';

export interface DeliveryMessage extends NewDelivery {
  /** The scheduled attempt this message is for, 1-based. */
  attempt: number;
  /**
   * Seconds still to wait before the attempt once this message arrives. SQS delays a message
   * by at most 15 minutes; a longer backoff is a chain of delayed copies.
   */
  wait_seconds: number;
}

/** Sends `message` to arrive after `waitSeconds`: the first hop of the wait now, the rest as `wait_seconds`. */
export async function sendDeliveryMessage(queue: Queue, message: Omit<DeliveryMessage, 'wait_seconds'>, waitSeconds: number): Promise<void> {
  const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(0, waitSeconds));
  await queue.send('deliveries', { body: { ...message, wait_seconds: waitSeconds - delaySeconds } satisfies DeliveryMessage, delaySeconds });
}

/** Checks the shape of a message read from the queue; null when it is not a delivery message. */
export function parseDeliveryMessage(text: string): DeliveryMessage | null {
  let value: Partial<DeliveryMessage>;
  try {
    value = JSON.parse(text) as Partial<DeliveryMessage>;
  } catch {
    return null;
  }
  const strings = ['delivery_id', 'webhook_id', 'org_id', 'event', 'event_id', 'body'] as const;
  if (typeof value !== 'object' || value === null || strings.some((name) => typeof value[name] !== 'string')) return null;
  const numbers = [value.created_at, value.attempt, value.wait_seconds];
  if (numbers.some((n) => !Number.isSafeInteger(n) || (n as number) < 0) || value.attempt! < 1) return null;
  return value as DeliveryMessage;
}
