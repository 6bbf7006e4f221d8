/**
 * Webhook items (docs/API.md §2.12): an organization's registered endpoints, their encrypted
 * secrets and the failure bookkeeping that disables an endpoint whose deliveries keep failing
 * (README, Webhooks).
 *
 * | item    | pk        | sk                   |
 * |---------|-----------|----------------------|
 * | webhook | ORG#<org> | WEBHOOK#<webhook_id> |
 *
 * Changes an admin sees (register, delete, disable, enable) are one transaction with their
 * admin event (admin-events.ts).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '../shared/event-types.js';
import { dynamo } from './clients.js';
import { getItem, prefixQuery, queryAll, strip, table, transact, writeIfCondition, type TransactItem } from './dynamo.js';

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

export const webhookKeys = {
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

/** Puts a new webhook with its admin event. */
export async function createWebhook(item: WebhookItem, event: TransactItem): Promise<void> {
  const result = await transact([
    {
      Put: {
        TableName: table(),
        Item: { ...webhookKeys.webhook(item.org_id, item.webhook_id), type: 'webhook', ...item },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    event,
  ]);
  if (!result.committed) throw new Error(`webhook ${item.webhook_id} already exists`);
}

/** Deletes a webhook with its admin event; false when there was none. */
export async function deleteWebhook(orgId: string, webhookId: string, event: TransactItem): Promise<boolean> {
  const result = await transact([
    { Delete: { TableName: table(), Key: webhookKeys.webhook(orgId, webhookId), ConditionExpression: 'attribute_exists(pk)' } },
    event,
  ]);
  return result.committed;
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
