/** The public shapes of webhooks (docs/API.md §2.12, never the secret) and of delivery log entries (docs/WEBHOOKS.md). */
import type { AttemptRecord, DeliveryItem, DeliveryStatus } from '../../store/webhook-deliveries.js';
import type { WebhookItem, WebhookStatus } from '../../store/webhooks.js';
import type { EventType } from '../../shared/event-types.js';

export interface WebhookView {
  webhook_id: string;
  org_id: string;
  endpoint_url: string;
  events: EventType[];
  status: WebhookStatus;
  created_at: number;
  updated_at: number;
}

export function webhookView(item: WebhookItem): WebhookView {
  return {
    webhook_id: item.webhook_id,
    org_id: item.org_id,
    endpoint_url: item.endpoint_url,
    events: item.events,
    status: item.status,
    created_at: item.created_at,
    updated_at: item.updated_at,
  };
}

interface AttemptView {
  attempted_at: number;
  http_status: number | null;
  error: string | null;
  latency_ms: number;
  response_excerpt: string | null;
  manual: boolean;
}

export interface DeliveryView {
  delivery_id: string;
  webhook_id: string;
  event: string;
  status: DeliveryStatus;
  created_at: number;
  updated_at: number;
  next_attempt_at: number | null;
  attempts: AttemptView[];
}

function attemptView(record: AttemptRecord): AttemptView {
  return {
    attempted_at: record.attempted_at,
    http_status: record.http_status,
    error: record.error,
    latency_ms: record.latency_ms,
    response_excerpt: record.response_excerpt ?? null,
    manual: record.manual,
  };
}

export function deliveryView(item: DeliveryItem): DeliveryView {
  return {
    delivery_id: item.delivery_id,
    webhook_id: item.webhook_id,
    event: item.event,
    status: item.status,
    created_at: item.created_at,
    updated_at: item.updated_at,
    next_attempt_at: item.next_attempt_at ?? null,
    attempts: (item.attempts ?? []).map(attemptView),
  };
}
