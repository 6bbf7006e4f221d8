/**
 * Registering, reading, deleting, disabling and enabling webhooks (docs/API.md §4.9, §2.12; docs/WEBHOOKS.md). A webhook of another organization is as missing as one that never existed:
 * every read and change is keyed by the caller's organization.
 */
import { randomUUID } from 'node:crypto';
import { adminEventPut } from '../../store/admin-events.js';
import { changeWebhookStatus, createWebhook, deleteWebhook, getWebhook, listWebhooks, type WebhookItem, type WebhookStatus } from '../../store/webhooks.js';
import { conflict, LedgerError, notFound } from '../../shared/errors.js';
import type { OrgCaller } from '../auth/caller.js';
import type { EventType } from '../events.js';
import type { Ports } from '../ports.js';
import { webhookView, type WebhookView } from './webhook-view.js';

/** Webhooks one organization may register: each event is fanned out to every one of them. */
const MAX_WEBHOOKS_PER_ORG = 25;

/** The secret's encryption context: a ciphertext only decrypts as the secret of this webhook of this organization. */
export const secretContext = (orgId: string, webhookId: string) => ({ org_id: orgId, webhook_id: webhookId });

const tooMany = () => conflict(`an organization may register at most ${MAX_WEBHOOKS_PER_ORG} webhooks; delete one first`);

export async function registerWebhook(
  ports: Pick<Ports, 'encryptor' | 'webhooks'>,
  caller: OrgCaller,
  input: { endpoint_url: string; events: EventType[]; secret: string },
  now = Date.now(),
): Promise<WebhookView> {
  const verdict = await ports.webhooks.check(input.endpoint_url);
  if (!verdict.allowed) throw new LedgerError('VALIDATION_ERROR', `endpoint_url is not allowed by the egress policy: ${verdict.reason}`);
  const webhookId = randomUUID();
  const item: WebhookItem = {
    webhook_id: webhookId,
    org_id: caller.orgId,
    endpoint_url: verdict.url,
    events: [...new Set(input.events)],
    status: 'active',
    secret_ciphertext: await ports.encryptor.encrypt(input.secret, secretContext(caller.orgId, webhookId)),
    created_at: now,
    updated_at: now,
  };
  const stored = await createWebhook(
    item,
    adminEventPut({
      orgId: caller.orgId,
      actor: caller.userId,
      action: 'webhook.register',
      targetType: 'webhook',
      targetId: webhookId,
      details: { endpoint_origin: endpointOrigin(item.endpoint_url), events: item.events },
      now,
    }),
    MAX_WEBHOOKS_PER_ORG,
  );
  // The cap is counted in the registration's own transaction (store/webhooks.ts).
  if (!stored) throw tooMany();
  return webhookView(item);
}

/**
 * What the admin log keeps of an endpoint: its origin (scheme://host[:port]) only. The log is
 * readable by roles that may not read webhooks (compliance auditors), and an endpoint URL can
 * be a capability (`?token=...` in its path or query): those stay on the webhook item.
 */
function endpointOrigin(url: string): string {
  return new URL(url).origin;
}

export async function listWebhookViews(caller: OrgCaller): Promise<WebhookView[]> {
  return (await listWebhooks(caller.orgId)).map(webhookView);
}

/** The caller's webhook, or NOT_FOUND. */
export async function findWebhook(caller: OrgCaller, webhookId: string): Promise<WebhookItem> {
  const item = await getWebhook(caller.orgId, webhookId);
  if (!item) throw notFound('webhook');
  return item;
}

export async function removeWebhook(caller: OrgCaller, webhookId: string, now = Date.now()): Promise<void> {
  const item = await findWebhook(caller, webhookId);
  const deleted = await deleteWebhook(
    caller.orgId,
    webhookId,
    adminEventPut({
      orgId: caller.orgId,
      actor: caller.userId,
      action: 'webhook.delete',
      targetType: 'webhook',
      targetId: webhookId,
      details: { endpoint_origin: endpointOrigin(item.endpoint_url) },
      now,
    }),
  );
  if (!deleted) throw notFound('webhook');
}

/**
 * PATCH {status}: "disabled" stops deliveries to a webhook (its pending retries are marked
 * failed unsent, like those of one the service disabled after 3 days of failures), "active"
 * enables it again (docs/WEBHOOKS.md); admin event webhook.disable or webhook.enable. Asking
 * for the status a webhook has changes nothing and answers it as it is.
 */
export async function setWebhookStatus(caller: OrgCaller, webhookId: string, to: WebhookStatus, now = Date.now()): Promise<WebhookView> {
  const item = await findWebhook(caller, webhookId);
  if (item.status === to) return webhookView(item);
  const changed = await changeWebhookStatus({
    orgId: caller.orgId,
    webhookId,
    from: item.status,
    to,
    now,
    event: adminEventPut({
      orgId: caller.orgId,
      actor: caller.userId,
      action: to === 'active' ? 'webhook.enable' : 'webhook.disable',
      targetType: 'webhook',
      targetId: webhookId,
      now,
    }),
  });
  if (!changed) return webhookView(await findWebhook(caller, webhookId));
  return webhookView({ ...item, status: to, updated_at: now });
}
