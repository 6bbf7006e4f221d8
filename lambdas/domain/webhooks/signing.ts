/**
 * What a delivery looks like on the wire (docs/API.md §6.2): the JSON body, the headers, and the
 * signature `sha256=` + lowercase hex HMAC-SHA256(secret, `<timestamp>.<raw body>`), where
 * the timestamp is the X-Service-Webhook-Timestamp header (Unix seconds of the attempt).
 * The body is fixed when the delivery is made, so every retry sends the same bytes; only the
 * timestamp and the signature change from attempt to attempt.
 */
import { createHash, createHmac } from 'node:crypto';

interface DeliveryBody {
  event: string;
  delivery_id: string;
  org_id: string;
  /** Unix ms when the event happened. */
  timestamp: number;
  data: Record<string, unknown>;
}

export function deliveryBody(body: DeliveryBody): string {
  return JSON.stringify({ event: body.event, delivery_id: body.delivery_id, org_id: body.org_id, timestamp: body.timestamp, data: body.data });
}

/** docs/API.md §6.2 X-Service-Signature for `rawBody` sent at `timestampSeconds`. */
export function signatureHeader(secret: string, timestampSeconds: number, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`).digest('hex')}`;
}

export function deliveryHeaders(input: {
  event: string;
  deliveryId: string;
  webhookId: string;
  secret: string;
  body: string;
  timestampSeconds: number;
}): Record<string, string> {
  return {
    'X-Service-Webhook-Event': input.event,
    'X-Service-Webhook-Delivery-Id': input.deliveryId,
    'X-Service-Webhook-Id': input.webhookId,
    'X-Service-Webhook-Timestamp': String(input.timestampSeconds),
    'X-Service-Signature': signatureHeader(input.secret, input.timestampSeconds, input.body),
  };
}

/**
 * The delivery id of `eventId` for `webhookId`: the same for every retry and every re-sent
 * copy of the event, so receivers can de-duplicate on it. A name-based UUID (RFC 9562 §5.8,
 * version 8) from SHA-256 over both ids, so it reveals neither.
 */
export function deliveryIdFor(eventId: string, webhookId: string): string {
  const bytes = createHash('sha256').update(`agent-ledger webhook delivery\n${eventId}\n${webhookId}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
