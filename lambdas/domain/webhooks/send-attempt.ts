/**
 * One HTTP attempt of a delivery: the secret decrypted (and kept for the warm function, so
 * a busy endpoint costs one KMS call per cold start, not one per delivery), the headers
 * signed for this attempt's timestamp, the POST under the egress policy, and the outcome as
 * the delivery log records it. A 2xx answer is success; any other answer, a timeout, a
 * connection failure or a refusal by the egress policy is a failure (docs/WEBHOOKS.md).
 */
import type { AttemptRecord } from '../../store/webhook-deliveries.js';
import type { WebhookItem } from '../../store/webhooks.js';
import type { Ports } from '../ports.js';
import { secretContext } from './manage-webhooks.js';
import { deliveryHeaders } from './signing.js';

export type AttemptPorts = Pick<Ports, 'encryptor' | 'webhooks'>;

/** Decrypted secrets by ciphertext; bounded so a function serving many webhooks stays small. */
const secrets = new Map<string, string>();
const MAX_CACHED_SECRETS = 1000;

async function webhookSecret(ports: AttemptPorts, webhook: WebhookItem): Promise<string> {
  const cached = secrets.get(webhook.secret_ciphertext);
  if (cached !== undefined) return cached;
  const secret = await ports.encryptor.decrypt(webhook.secret_ciphertext, secretContext(webhook.org_id, webhook.webhook_id));
  if (secrets.size >= MAX_CACHED_SECRETS) secrets.delete(secrets.keys().next().value!);
  secrets.set(webhook.secret_ciphertext, secret);
  return secret;
}

interface AttemptResult {
  record: AttemptRecord;
  succeeded: boolean;
}

export async function sendAttempt(
  ports: AttemptPorts,
  webhook: WebhookItem,
  delivery: { delivery_id: string; event: string; body: string },
  manual: boolean,
): Promise<AttemptResult> {
  const secret = await webhookSecret(ports, webhook);
  const attemptedAt = Date.now();
  const headers = deliveryHeaders({
    event: delivery.event,
    deliveryId: delivery.delivery_id,
    webhookId: webhook.webhook_id,
    secret,
    body: delivery.body,
    timestampSeconds: Math.floor(attemptedAt / 1000),
  });
  const outcome = await ports.webhooks.post({ url: webhook.endpoint_url, headers, body: delivery.body });
  if (outcome.kind === 'response') {
    return {
      record: { attempted_at: attemptedAt, http_status: outcome.status, error: null, latency_ms: outcome.latencyMs, response_excerpt: outcome.excerpt, manual },
      succeeded: outcome.status >= 200 && outcome.status < 300,
    };
  }
  return { record: { attempted_at: attemptedAt, http_status: null, error: outcome.error, latency_ms: outcome.latencyMs, manual }, succeeded: false };
}

/** The log entry of a scheduled attempt that was not sent because the webhook is disabled. */
export function notSentRecord(reason: string, now: number): AttemptRecord {
  return { attempted_at: now, http_status: null, error: `not sent: ${reason}`, latency_ms: 0, manual: false };
}
