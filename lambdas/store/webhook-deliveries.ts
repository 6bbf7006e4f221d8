/**
 * The delivery log (docs/WEBHOOKS.md): one item per (event, webhook) delivery with its
 * status and every attempt, listed newest first per webhook, removed by DynamoDB TTL 30 days
 * after the delivery was created.
 *
 * | item     | pk                              | sk                     | gsi2 (log order) |
 * |----------|---------------------------------|------------------------|------------------|
 * | delivery | ORG#<org>#WEBHOOK#<webhook_id>  | DELIVERY#<delivery_id> | ORG#<org>#WEBHOOK#<webhook_id>#DELIVERIES / <created_at>#<delivery_id> |
 *
 * Scheduled attempts are claimed before they are made: the claim names the attempt number
 * and holds a lease, so a message delivered twice (SQS is at least once) or a fan-out
 * repeated after a crash makes one HTTP request, not two, and an attempt whose worker died
 * is taken over once its lease ran out.
 *
 * gsi2 projects a few operation attributes only (store/table-design.ts), so the log is read
 * as positions from the index and the items by key: an attempt rewrites the item but no
 * projected attribute, so it costs the index nothing.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE_DESIGN } from './table-design.js';
import { dynamo } from './clients.js';
import { batchGetInOrder, getItem, INDEX_ATTRIBUTES, isConditionFailure, padMs, queryPage, strip, table, type Item } from './dynamo.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface AttemptRecord {
  attempted_at: number;
  /** The endpoint's HTTP status; null when there was no answer. */
  http_status: number | null;
  /** Why there was no (successful) answer: timeout, connection error, egress refusal; null for an answer. */
  error: string | null;
  latency_ms: number;
  /** The start of the response body (bounded). */
  response_excerpt?: string;
  /** Sent by a person (test, redeliver), outside the retry schedule. */
  manual: boolean;
}

/** What creates a delivery's item, when its first attempt (or a test ping) is the first write. */
export interface NewDelivery {
  delivery_id: string;
  webhook_id: string;
  org_id: string;
  event: string;
  event_id: string;
  /** The exact body every attempt sends (docs/API.md §6.2), so its bytes and signature input never change. */
  body: string;
  created_at: number;
}

export interface DeliveryItem extends NewDelivery {
  status: DeliveryStatus;
  attempts: AttemptRecord[];
  /** Attempts of the retry schedule made so far (manual ones not counted). */
  scheduled_attempts: number;
  /** When the next scheduled attempt is due; null when none is. */
  next_attempt_at: number | null;
  updated_at: number;
  /** Unix ms until which a worker holds the claim on the current scheduled attempt. */
  lease_until?: number;
}

/** Log entries expire this long after the delivery was created (docs/WEBHOOKS.md). */
const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

const deliveryKey = (orgId: string, webhookId: string, deliveryId: string) => ({
  pk: `ORG#${orgId}#WEBHOOK#${webhookId}`,
  sk: `DELIVERY#${deliveryId}`,
});

const logPartition = (orgId: string, webhookId: string) => `ORG#${orgId}#WEBHOOK#${webhookId}#DELIVERIES`;

function creationValues(delivery: NewDelivery): Item {
  return {
    ':delivery_id': delivery.delivery_id,
    ':webhook_id': delivery.webhook_id,
    ':org_id': delivery.org_id,
    ':event': delivery.event,
    ':event_id': delivery.event_id,
    ':body': delivery.body,
    ':created_at': delivery.created_at,
    ':empty': [],
    ':gsi2pk': logPartition(delivery.org_id, delivery.webhook_id),
    ':gsi2sk': logPosition(delivery),
    ':expires': Math.floor((delivery.created_at + DELIVERY_RETENTION_MS) / 1000),
  };
}

const CREATION_SETS = [
  'delivery_id = if_not_exists(delivery_id, :delivery_id)',
  'webhook_id = if_not_exists(webhook_id, :webhook_id)',
  'org_id = if_not_exists(org_id, :org_id)',
  'event = if_not_exists(event, :event)',
  'event_id = if_not_exists(event_id, :event_id)',
  'body = if_not_exists(body, :body)',
  'created_at = if_not_exists(created_at, :created_at)',
  'gsi2pk = if_not_exists(gsi2pk, :gsi2pk)',
  'gsi2sk = if_not_exists(gsi2sk, :gsi2sk)',
  `${TABLE_DESIGN.ttlAttribute} = if_not_exists(${TABLE_DESIGN.ttlAttribute}, :expires)`,
  '#type = :type',
];

type ClaimResult = 'claimed' | 'busy' | 'obsolete';

/**
 * Claims scheduled attempt `attempt` (1-based) of a delivery until `leaseUntil`, creating the
 * item on the first attempt. `busy`: another worker holds the claim (try again later);
 * `obsolete`: this attempt was made already, or the delivery succeeded (drop the message).
 */
export async function claimScheduledAttempt(delivery: NewDelivery, attempt: number, now: number, leaseUntil: number): Promise<ClaimResult> {
  const open = 'scheduled_attempts = :previous AND #status <> :succeeded AND (attribute_not_exists(lease_until) OR lease_until < :now)';
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: deliveryKey(delivery.org_id, delivery.webhook_id, delivery.delivery_id),
        UpdateExpression: `SET ${CREATION_SETS.join(', ')}, attempts = if_not_exists(attempts, :empty), scheduled_attempts = :previous, #status = :pending, lease_until = :lease, updated_at = :now`,
        ConditionExpression: attempt === 1 ? `attribute_not_exists(pk) OR (${open})` : open,
        ExpressionAttributeNames: { '#status': 'status', '#type': 'type' },
        ExpressionAttributeValues: {
          ...creationValues(delivery),
          ':type': 'webhook_delivery',
          ':previous': attempt - 1,
          ':succeeded': 'succeeded',
          ':pending': 'pending',
          ':lease': leaseUntil,
          ':now': now,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'claimed';
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const old = unmarshalledOld(error);
    const stillOurs = old && Number(old.scheduled_attempts) === attempt - 1 && old.status !== 'succeeded';
    return stillOurs ? 'busy' : 'obsolete';
  }
}

/** The item a failed condition returned (ReturnValuesOnConditionCheckFailure), as plain values. */
function unmarshalledOld(error: unknown): { scheduled_attempts?: unknown; status?: unknown } | undefined {
  const item = (error as { Item?: Record<string, { N?: string; S?: string }> }).Item;
  if (!item) return undefined;
  return { scheduled_attempts: item.scheduled_attempts?.N, status: item.status?.S };
}

/**
 * Records scheduled attempt `attempt` under the claim: appends it, sets the status and the
 * next due time, releases the lease. False when the claim was lost (the attempt was taken
 * over, or a manual redelivery succeeded meanwhile): the record is dropped.
 */
export async function recordScheduledAttempt(input: {
  orgId: string;
  webhookId: string;
  deliveryId: string;
  attempt: number;
  record: AttemptRecord;
  status: DeliveryStatus;
  nextAttemptAt: number | null;
}): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: deliveryKey(input.orgId, input.webhookId, input.deliveryId),
        UpdateExpression:
          'SET attempts = list_append(attempts, :record), #status = :status, scheduled_attempts = :attempt, next_attempt_at = :next, updated_at = :now REMOVE lease_until',
        ConditionExpression: 'scheduled_attempts = :previous AND #status <> :succeeded',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':record': [input.record],
          ':status': input.status,
          ':attempt': input.attempt,
          ':previous': input.attempt - 1,
          ':next': input.nextAttemptAt,
          ':now': input.record.attempted_at,
          ':succeeded': 'succeeded',
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Most attempts one delivery keeps: the schedule's plus this many manual ones; further redeliveries are refused. */
const MAX_ATTEMPTS_PER_DELIVERY = 30;

/**
 * Records a manual attempt (test ping, redeliver), creating the item for a ping. A success
 * makes the delivery `succeeded` (scheduled retries still queued then find nothing to do);
 * a failure leaves the status as it was (`failed` for a new ping). False when the delivery
 * already holds MAX_ATTEMPTS_PER_DELIVERY attempts.
 */
export async function recordManualAttempt(delivery: NewDelivery, record: AttemptRecord, succeeded: boolean): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: deliveryKey(delivery.org_id, delivery.webhook_id, delivery.delivery_id),
        UpdateExpression: [
          `SET ${CREATION_SETS.join(', ')}`,
          'attempts = list_append(if_not_exists(attempts, :empty), :record)',
          'scheduled_attempts = if_not_exists(scheduled_attempts, :zero)',
          succeeded ? 'next_attempt_at = :null' : 'next_attempt_at = if_not_exists(next_attempt_at, :null)',
          succeeded ? '#status = :succeeded' : '#status = if_not_exists(#status, :failed)',
          'updated_at = :now',
        ].join(', '),
        ConditionExpression: 'attribute_not_exists(pk) OR size(attempts) < :max',
        ExpressionAttributeNames: { '#status': 'status', '#type': 'type' },
        ExpressionAttributeValues: {
          ...creationValues(delivery),
          ':type': 'webhook_delivery',
          ':record': [record],
          ':zero': 0,
          ':null': null,
          ...(succeeded ? { ':succeeded': 'succeeded' } : { ':failed': 'failed' }),
          ':now': record.attempted_at,
          ':max': MAX_ATTEMPTS_PER_DELIVERY,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export async function getDelivery(orgId: string, webhookId: string, deliveryId: string): Promise<DeliveryItem | undefined> {
  return getItem<DeliveryItem>(deliveryKey(orgId, webhookId, deliveryId), [...INDEX_ATTRIBUTES, TABLE_DESIGN.ttlAttribute]);
}

/**
 * One page of a webhook's deliveries, newest first, after the entry whose log position is
 * `before` (`logPosition` of the previous page's last entry); `more` says whether older
 * entries exist.
 */
export async function listDeliveries(
  orgId: string,
  webhookId: string,
  limit: number,
  before: string | undefined,
): Promise<{ deliveries: DeliveryItem[]; more: boolean }> {
  const items = await queryPage({
    IndexName: 'gsi2',
    KeyConditionExpression: before === undefined ? 'gsi2pk = :pk' : 'gsi2pk = :pk AND gsi2sk < :before',
    ExpressionAttributeValues: { ':pk': logPartition(orgId, webhookId), ...(before === undefined ? {} : { ':before': before }) },
    ScanIndexForward: false,
    Limit: limit + 1,
  });
  const found = await batchGetInOrder(items.slice(0, limit).map(({ pk, sk }) => ({ pk: String(pk), sk: String(sk) })));
  return {
    deliveries: found.map((item) => strip<DeliveryItem>(item, [...INDEX_ATTRIBUTES, TABLE_DESIGN.ttlAttribute])),
    more: items.length > limit,
  };
}

/** Where a delivery sits in its webhook's log (its gsi2 sort key): what a page cursor carries. */
export function logPosition(delivery: Pick<DeliveryItem, 'created_at' | 'delivery_id'>): string {
  return `${padMs(delivery.created_at)}#${delivery.delivery_id}`;
}
