/**
 * Disabling an endpoint that keeps failing (docs/WEBHOOKS.md): the webhook item remembers
 * when the current run of failed deliveries began (`failing_since`); a success ends the run;
 * a failure once the run is DISABLE_AFTER_MS (3 days) old sets the webhook `disabled` with
 * admin event webhook.disable. PATCH {status: "active"} enables it again (manage-webhooks.ts).
 */
import { adminEventPut } from '../../store/admin-events.js';
import { changeWebhookStatus, clearWebhookFailing, markWebhookFailing, type WebhookItem } from '../../store/webhooks.js';
import { logger } from '../../logger.js';
import { DISABLE_AFTER_MS } from './retry-schedule.js';

/** The admin event actor of changes the service makes by itself. */
const SERVICE_ACTOR = 'service';

/** Updates the failure run of `webhook` (as read before the attempt) after an attempt ended at `now`. */
export async function noteDeliveryOutcome(webhook: WebhookItem, succeeded: boolean, now: number): Promise<void> {
  if (succeeded) {
    if (webhook.failing_since !== undefined) await clearWebhookFailing(webhook.org_id, webhook.webhook_id);
    return;
  }
  if (webhook.failing_since === undefined) {
    await markWebhookFailing(webhook.org_id, webhook.webhook_id, now);
    return;
  }
  if (webhook.status !== 'active' || now - webhook.failing_since < DISABLE_AFTER_MS) return;
  const disabled = await changeWebhookStatus({
    orgId: webhook.org_id,
    webhookId: webhook.webhook_id,
    from: 'active',
    to: 'disabled',
    now,
    event: adminEventPut({
      orgId: webhook.org_id,
      actor: SERVICE_ACTOR,
      action: 'webhook.disable',
      targetType: 'webhook',
      targetId: webhook.webhook_id,
      details: { reason: 'every delivery failed for 3 days', failing_since: webhook.failing_since },
      now,
    }),
  });
  if (disabled) logger.warn('webhook disabled: every delivery failed for 3 days', { org_id: webhook.org_id, webhook_id: webhook.webhook_id });
}
