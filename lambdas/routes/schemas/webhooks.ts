/**
 * Bodies of the webhook endpoints (docs/API.md §2.12, §4.9; docs/WEBHOOKS.md) and of the
 * deliveries themselves (docs/API.md §6.2), which the OpenAPI document lists in its `webhooks`
 * section (OpenAPI 3.1 §4.8.1).
 */
import * as z from 'zod';
import { EVENT_TYPES } from '../../shared/event-types.js';
import { unixMs } from './common.js';

/** The egress policy, as the OpenAPI document and docs/WEBHOOKS.md state it. */
export const EGRESS_POLICY =
  'endpoint_url must pass the egress policy: an absolute https URL (plain http only when the service runs with ' +
  'LEDGER_WEBHOOK_ALLOW_LOOPBACK, and then only to loopback addresses) of at most 2048 characters, without ' +
  'user:password@, whose host is not and does not resolve to a loopback, private (RFC 1918), carrier-grade NAT ' +
  '(100.64.0.0/10), link-local (169.254.0.0/16, including 169.254.169.254; fe80::/10), unique-local (fc00::/7, ' +
  'including fd00:ec2::254), multicast, unspecified, broadcast, documentation or other reserved address, nor an ' +
  'IPv4-mapped, IPv4-compatible or NAT64 form of one, in any spelling (decimal, octal, hex, short forms, trailing ' +
  'dots). The same check runs at every delivery against the address actually connected to; redirects are not ' +
  'followed; each attempt has 10 s and reads at most 64 KiB of the response.';

const webhookEventSchema = z.enum(EVENT_TYPES);

export const registerWebhookBody = z.strictObject({
  endpoint_url: z.string().min(1).max(2048),
  events: z.array(webhookEventSchema).min(1).max(EVENT_TYPES.length * 4),
  secret: z.string().min(16, 'must be 16 to 256 characters').max(256, 'must be 16 to 256 characters'),
});

/** PATCH: the one change a client makes is the status: disabled stops deliveries, active resumes them. */
export const updateWebhookBody = z.strictObject({ status: z.enum(['active', 'disabled']) });

export const webhookParams = z.strictObject({ webhook_id: z.uuid() });
export const deliveryParams = z.strictObject({ webhook_id: z.uuid(), delivery_id: z.uuid() });

export const listDeliveriesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(128).optional(),
});

/** docs/API.md §2.12; `disabled` when every delivery failed for 3 days (docs/WEBHOOKS.md). The secret is never returned. */
const webhookSchema = z
  .object({
    webhook_id: z.string(),
    org_id: z.string(),
    endpoint_url: z.string(),
    events: z.array(webhookEventSchema),
    status: z.enum(['active', 'disabled']),
    created_at: unixMs,
    updated_at: unixMs,
  })
  .meta({ id: 'Webhook' });

const deliveryAttemptSchema = z
  .object({
    attempted_at: unixMs,
    http_status: z.number().int().nullable().describe('The endpoint\'s answer; null when there was none'),
    error: z.string().nullable().describe('Timeout, connection error or egress-policy refusal; null when the endpoint answered'),
    latency_ms: z.number().int().nonnegative(),
    response_excerpt: z.string().nullable().describe('The first KiB of the response body'),
    manual: z.boolean().describe('Sent by test or redeliver, outside the retry schedule'),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

const deliverySchema = z
  .object({
    delivery_id: z.string(),
    webhook_id: z.string(),
    event: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    created_at: unixMs,
    updated_at: unixMs,
    next_attempt_at: unixMs.nullable(),
    attempts: z.array(deliveryAttemptSchema),
  })
  .meta({ id: 'WebhookDelivery' });

export const webhookResponse = z.object({ webhook: webhookSchema });
export const webhookListResponse = z.object({ webhooks: z.array(webhookSchema) });
export const successResponse = z.object({ success: z.literal(true) });
export const deliveryResponse = z.object({ delivery: deliverySchema });
export const deliveryListResponse = z.object({ deliveries: z.array(deliverySchema), cursor: z.string().optional() });

/** The data of each event (docs/API.md §6.2 for operation.accepted; the others are ours to define). */
export const webhookEventData = {
  'operation.accepted': z.object({ operation_id: z.string(), agent_id: z.string() }).meta({ id: 'OperationAcceptedData' }),
  'epoch.created': z
    .object({ epoch_id: z.string(), start_time: unixMs, end_time: unixMs, root_hash: z.string(), leaf_count: z.number().int().positive() })
    .meta({ id: 'EpochCreatedData' }),
  'agent.status_changed': z
    .object({ agent_id: z.string(), from: z.string(), to: z.string(), reason: z.string() })
    .meta({ id: 'AgentStatusChangedData' }),
  ping: z.object({ webhook_id: z.string() }).meta({ id: 'PingData' }),
} as const;

/** What each event announces, for the OpenAPI `webhooks` section. */
export const webhookEventSummaries: Record<keyof typeof webhookEventData, string> = {
  'operation.accepted': 'An operation record was accepted (docs/API.md §4.5 rule 9).',
  'epoch.created': 'An epoch closed and its Merkle root was committed (docs/API.md §6.1).',
  'agent.status_changed': 'An agent changed status, e.g. active → frozen (docs/API.md §3).',
  ping: 'Sent by POST /v1/webhooks/{webhook_id}/test only.',
};

/** docs/API.md §6.2 body, for one event's data schema. */
export function deliveryBodySchema(event: string, data: z.ZodType): z.ZodType {
  return z.object({ event: z.literal(event), delivery_id: z.string(), org_id: z.string(), timestamp: unixMs, data });
}

/** docs/API.md §6.2 headers of every delivery. */
export const DELIVERY_HEADERS: readonly { name: string; description: string }[] = [
  { name: 'X-Service-Webhook-Event', description: 'The event type.' },
  { name: 'X-Service-Webhook-Delivery-Id', description: 'The delivery id; the same on every retry, so receivers can de-duplicate on it.' },
  { name: 'X-Service-Webhook-Id', description: 'The webhook id.' },
  { name: 'X-Service-Webhook-Timestamp', description: 'Unix seconds of this attempt; part of the signed string. Reject deliveries whose timestamp is far from now.' },
  {
    name: 'X-Service-Signature',
    description: '`sha256=` + lowercase hex HMAC-SHA256, keyed with the webhook secret, over `<X-Service-Webhook-Timestamp>.<raw body>`.',
  },
];
