/**
 * Webhook items (docs/API.md §2.12): an organization's registered endpoints, their encrypted
 * secrets and the failure bookkeeping that disables an endpoint whose deliveries keep failing
 * (docs/WEBHOOKS.md).
 *
 * | item    | pk        | sk                   |
 * |---------|-----------|----------------------|
 * | webhook | ORG#<org> | WEBHOOK#<webhook_id> |
 * | registered webhooks counter | ORG#<org> | WEBHOOKS |
 *
 * Changes an admin sees (register, delete, disable, enable) are one transaction with their
 * admin event (admin-events.ts). The counter (`registered`) moves in the same transaction as
 * the webhook it counts, on the condition that it stays under the cap, so the cap holds under
 * any number of concurrent registrations (a count read before the write would let each of
 * them see room).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '../shared/event-types.js';
import { conflict } from '../shared/errors.js';
import { dynamo } from './clients.js';
import {
  CONDITION_FAILED,
  TRANSACTION_CONFLICT,
  getItem,
  prefixQuery,
  queryAll,
  strip,
  table,
  transact,
  writeIfCondition,
  type TransactItem,
} from './dynamo.js';

export type WebhookStatus = 'active' | 'disabled';

export interface WebhookItem {
  webhook_id: string;
  org_id: string;
  endpoint_url: string;
  events: EventType[];
  status: WebhookStatus;
  /** The secret, encrypted by the Encryptor port with context {org_id, webhook_id}; never returned. */
  secret_ciphertext: string;
  created_at: number;
  updated_at: number;
  /** When the current run of failed deliveries began (no success since); absent while deliveries succeed. */
  failing_since?: number;
}

const webhookKeys = {
  webhook: (orgId: string, webhookId: string) => ({ pk: `ORG#${orgId}`, sk: `WEBHOOK#${webhookId}` }),
  prefix: 'WEBHOOK#',
};

export async function getWebhook(orgId: string, webhookId: string): Promise<WebhookItem | undefined> {
  return getItem<WebhookItem>(webhookKeys.webhook(orgId, webhookId));
}

/** Every webhook of the organization, in webhook_id order. */
export async function listWebhooks(orgId: string): Promise<WebhookItem[]> {
  const items = await queryAll(prefixQuery(`ORG#${orgId}`, webhookKeys.prefix));
  return items.map((item) => strip<WebhookItem>(item));
}

const counterKey = (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'WEBHOOKS' });

/** Attempts at a change that lost to concurrent ones on the same counter. */
const CONFLICT_ATTEMPTS = 8;

/**
 * Waits before another attempt; after the last one the client gets CONFLICT and may retry
 * (a burst of registrations for one organization contends for one counter item).
 */
async function backOff(attempt: number): Promise<void> {
  if (attempt >= CONFLICT_ATTEMPTS) throw conflict('concurrent changes to the organization\'s webhooks won; retry the request');
  await new Promise((resolve) => setTimeout(resolve, 20 * attempt * Math.random()));
}

/**
 * The counter's change for one more webhook, on the condition that fewer than `max` are
 * registered. An organization whose webhooks predate the counter has none: its first
 * registration creates it from the webhooks it has (a concurrent first registration then
 * fails the attribute_not_exists condition and retries against the created counter).
 */
async function enterCounter(orgId: string, max: number): Promise<TransactItem | 'full'> {
  const counter = await getItem<{ registered: number }>(counterKey(orgId));
  if (counter) {
    return {
      Update: {
        TableName: table(),
        Key: counterKey(orgId),
        UpdateExpression: 'ADD registered :one',
        ConditionExpression: 'registered < :max',
        ExpressionAttributeValues: { ':one': 1, ':max': max },
      },
    };
  }
  const existing = (await listWebhooks(orgId)).length;
  if (existing >= max) return 'full';
  return {
    Put: {
      TableName: table(),
      Item: { ...counterKey(orgId), type: 'webhook_counter', registered: existing + 1 },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * Puts a new webhook with its admin event and one more on the organization's counter (one
 * transaction). False, storing nothing, when the organization already has `max` webhooks.
 */
export async function createWebhook(item: WebhookItem, event: TransactItem, max: number): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const counter = await enterCounter(item.org_id, max);
    if (counter === 'full') return false;
    const result = await transact([
      counter,
      {
        Put: {
          TableName: table(),
          Item: { ...webhookKeys.webhook(item.org_id, item.webhook_id), type: 'webhook', ...item },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      event,
    ]);
    if (result.committed) return true;
    const [counterReason, webhookReason] = result.reasons;
    if (webhookReason?.code === CONDITION_FAILED) throw new Error(`webhook ${item.webhook_id} already exists`);
    // A full counter is the answer; a counter another registration created meanwhile, or a
    // transaction that lost to a concurrent one, is retried against the counter as it is now.
    if (counterReason?.code === CONDITION_FAILED && 'Update' in counter) return false;
    const retriable = counterReason?.code === CONDITION_FAILED || result.reasons.some((reason) => reason.code === TRANSACTION_CONFLICT);
    if (!retriable) throw new Error(`webhook ${item.webhook_id} could not be stored: ${result.reasons.map((reason) => reason.code).join(', ')}`);
    await backOff(attempt);
  }
}

/**
 * Deletes a webhook with its admin event and one fewer on the counter; false when there was
 * none. A webhook registered before the counter existed is deleted alone (the counter, once
 * created, counts what is registered then).
 */
export async function deleteWebhook(orgId: string, webhookId: string, event: TransactItem): Promise<boolean> {
  const remove: TransactItem = { Delete: { TableName: table(), Key: webhookKeys.webhook(orgId, webhookId), ConditionExpression: 'attribute_exists(pk)' } };
  const leave: TransactItem = {
    Update: {
      TableName: table(),
      Key: counterKey(orgId),
      UpdateExpression: 'ADD registered :minus',
      ConditionExpression: 'registered > :zero',
      ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
    },
  };
  for (let attempt = 1; ; attempt++) {
    const result = await transact([remove, leave, event]);
    if (result.committed) return true;
    if (result.reasons[0]?.code === CONDITION_FAILED) return false;
    if (result.reasons[1]?.code === CONDITION_FAILED) return (await transact([remove, event])).committed;
    if (!result.reasons.some((reason) => reason.code === TRANSACTION_CONFLICT)) {
      throw new Error(`webhook ${webhookId} could not be deleted: ${result.reasons.map((reason) => reason.code).join(', ')}`);
    }
    await backOff(attempt);
  }
}

/**
 * Moves a webhook from `from` to `to` with its admin event; false when it is gone or no
 * longer in `from`. Either way the failure run is forgotten: a disabled webhook starts
 * afresh when enabled.
 */
export async function changeWebhookStatus(input: {
  orgId: string;
  webhookId: string;
  from: WebhookStatus;
  to: WebhookStatus;
  now: number;
  event: TransactItem;
}): Promise<boolean> {
  const result = await transact([
    {
      Update: {
        TableName: table(),
        Key: webhookKeys.webhook(input.orgId, input.webhookId),
        UpdateExpression: 'SET #status = :to, updated_at = :now REMOVE failing_since',
        ConditionExpression: 'attribute_exists(pk) AND #status = :from',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':to': input.to, ':from': input.from, ':now': input.now },
      },
    },
    input.event,
  ]);
  return result.committed;
}

/** Records that deliveries are failing since `now`, unless a run of failures already began. */
export async function markWebhookFailing(orgId: string, webhookId: string, now: number): Promise<void> {
  await writeIfCondition(() =>
    dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: webhookKeys.webhook(orgId, webhookId),
        UpdateExpression: 'SET failing_since = if_not_exists(failing_since, :now)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': now },
      }),
    ),
  );
}

/** Ends a run of failures (a delivery succeeded). */
export async function clearWebhookFailing(orgId: string, webhookId: string): Promise<void> {
  await writeIfCondition(() =>
    dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: webhookKeys.webhook(orgId, webhookId),
        UpdateExpression: 'REMOVE failing_since',
        ConditionExpression: 'attribute_exists(pk)',
      }),
    ),
  );
}
