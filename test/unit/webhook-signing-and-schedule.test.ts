// The wire format of deliveries (docs/API.md §6.2) and the retry schedule (docs/WEBHOOKS.md), as
// pure functions: the signature against a value computed with `openssl dgst -hmac`, stable
// delivery ids, the backoff bounds, and the shape check of queue messages.
import { describe, expect, it } from 'vitest';
import { parseDeliveryMessage } from '../../lambdas/domain/webhooks/delivery-message.js';
import { MAX_SCHEDULED_ATTEMPTS, retryDelaySeconds } from '../../lambdas/domain/webhooks/retry-schedule.js';
import { deliveryBody, deliveryHeaders, deliveryIdFor, signatureHeader } from '../../lambdas/domain/webhooks/signing.js';

describe('signing', () => {
  const body = deliveryBody({ event: 'ping', delivery_id: 'd', org_id: 'o', timestamp: 1, data: {} });

  it('the body is {event, delivery_id, org_id, timestamp, data} in that order', () => {
    expect(body).toBe('{"event":"ping","delivery_id":"d","org_id":"o","timestamp":1,"data":{}}');
  });

  it('X-Service-Signature is sha256= + hex HMAC-SHA256 over "<timestamp>.<raw body>" (openssl dgst -sha256 -hmac)', () => {
    expect(signatureHeader('whsec_0123456789abcdef', 1700000000, body)).toBe('sha256=77dc9e0d5ddc5c30990d177d3a8e502ffee942002836bd060dce2ec2f5d6f4b8');
  });

  it('the five docs/API.md §6.2 headers', () => {
    expect(deliveryHeaders({ event: 'ping', deliveryId: 'd', webhookId: 'w', secret: 'whsec_0123456789abcdef', body, timestampSeconds: 1700000000 })).toEqual({
      'X-Service-Webhook-Event': 'ping',
      'X-Service-Webhook-Delivery-Id': 'd',
      'X-Service-Webhook-Id': 'w',
      'X-Service-Webhook-Timestamp': '1700000000',
      'X-Service-Signature': 'sha256=77dc9e0d5ddc5c30990d177d3a8e502ffee942002836bd060dce2ec2f5d6f4b8',
    });
  });

  it('a delivery id is a UUID fixed by (event id, webhook id), different for either change', () => {
    const id = deliveryIdFor('event-1', 'webhook-1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(deliveryIdFor('event-1', 'webhook-1')).toBe(id);
    expect(deliveryIdFor('event-2', 'webhook-1')).not.toBe(id);
    expect(deliveryIdFor('event-1', 'webhook-2')).not.toBe(id);
  });
});

describe('retry schedule', () => {
  it('1 min, 5 min, 30 min, 2 h, 6 h, 12 h, each up to 20% later; none after the 7th attempt', () => {
    const bases = [60, 300, 1800, 7200, 21600, 43200];
    bases.forEach((base, index) => {
      expect(retryDelaySeconds(index + 1, 0)).toBe(base);
      expect(retryDelaySeconds(index + 1, 0.999999)).toBe(Math.round(base * 1.2));
    });
    expect(MAX_SCHEDULED_ATTEMPTS).toBe(7);
    expect(retryDelaySeconds(7, 0.5)).toBeNull();
    const total = bases.reduce((sum, base) => sum + base, 0) / 3600;
    expect(total).toBeGreaterThan(20);
    expect(total * 1.2).toBeLessThan(25);
  });
});

describe('deliveries queue messages', () => {
  const message = { delivery_id: 'd', webhook_id: 'w', org_id: 'o', event: 'epoch.created', event_id: 'e', body: '{}', created_at: 1, attempt: 1, wait_seconds: 0 };

  it('accepts the shape the fan-out sends and refuses anything else', () => {
    expect(parseDeliveryMessage(JSON.stringify(message))).toEqual(message);
    for (const bad of ['not json', 'null', '[]', JSON.stringify({ ...message, attempt: 0 }), JSON.stringify({ ...message, wait_seconds: -1 }), JSON.stringify({ ...message, body: {} })]) {
      expect(parseDeliveryMessage(bad), bad).toBeNull();
    }
  });
});
