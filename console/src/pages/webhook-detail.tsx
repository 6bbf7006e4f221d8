/**
 * One webhook (docs/WEBHOOKS.md): send a test ping, disable or enable it, delete it, and its
 * delivery log newest first (GET /v1/webhooks/{id}/deliveries, cursor paging), each delivery
 * with every attempt and a redeliver button. Test and redeliver answer the delivery with its
 * new attempt, which replaces the row in place.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, call, type Schemas } from '../api/client.js';
import { useAction } from '../components/action.js';
import { ConfirmButton } from '../components/confirm.js';
import { ShortId } from '../components/copy.js';
import { Pager, pageQuery, usePagedResource } from '../components/pager.js';
import { PageTitle, Status } from '../components/page.js';
import { ErrorText, Loaded, useResource } from '../components/states.js';
import { Table } from '../components/table.js';
import { Time } from '../components/time.js';

type Delivery = Schemas['WebhookDelivery'];
type Attempt = Schemas['WebhookDeliveryAttempt'];
type Path = { params: { path: { webhook_id: string } } };

/** The outcome of one attempt in words: the HTTP status, or why there was none. */
function outcome(attempt: Attempt): string {
  const answer = attempt.http_status === null ? (attempt.error ?? 'no answer') : `HTTP ${attempt.http_status}`;
  return `${answer} in ${attempt.latency_ms} ms${attempt.manual ? ' (sent by a person)' : ''}`;
}

function Attempts({ delivery }: { delivery: Delivery }) {
  if (delivery.attempts.length === 0) return <span class="muted">not attempted yet</span>;
  const last = delivery.attempts.at(-1)!;
  return (
    <details>
      <summary>
        {delivery.attempts.length} attempt{delivery.attempts.length === 1 ? '' : 's'}, last {outcome(last)}
      </summary>
      <ol class="plain">
        {delivery.attempts.map((attempt) => (
          <li key={attempt.attempted_at}>
            <Time ms={attempt.attempted_at} />: {outcome(attempt)}
            {attempt.response_excerpt && (
              <>
                {' '}
                answered <code>{attempt.response_excerpt}</code>
              </>
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}

function DeliveryRow({ listed, path }: { listed: Delivery; path: Path }) {
  const [delivery, setDelivery] = useState(listed);
  const redeliver = useAction(async () => {
    const answer = await call(
      api.POST('/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', { params: { path: { ...path.params.path, delivery_id: delivery.delivery_id } } }),
    );
    setDelivery(answer.delivery);
  });
  return (
    <tr data-delivery={delivery.delivery_id}>
      <td>
        <Time ms={delivery.created_at} />
      </td>
      <td>
        <code>{delivery.event}</code>
      </td>
      <td>
        <Status value={delivery.status} />
      </td>
      <td>
        <Attempts delivery={delivery} />
      </td>
      <td>
        <Time ms={delivery.next_attempt_at} />
      </td>
      <td>
        <ShortId value={delivery.delivery_id} label="delivery id" />
        <button type="button" onClick={() => void redeliver.run()} disabled={redeliver.busy} aria-label={`Redeliver ${delivery.event} delivery ${delivery.delivery_id}`}>
          {redeliver.busy ? 'Sending…' : 'Redeliver'}
        </button>
        <ErrorText error={redeliver.error} />
      </td>
    </tr>
  );
}

function DeliveryLog({ path, refreshes }: { path: Path; refreshes: number }) {
  const {
    paging,
    resource: deliveries,
    toFirstPage,
  } = usePagedResource(
    (cursor) => call(api.GET('/v1/webhooks/{webhook_id}/deliveries', { params: { ...path.params, query: pageQuery(cursor) } })),
    [path.params.path.webhook_id, refreshes],
  );
  return (
    <section aria-labelledby="deliveries">
      <div class="page-title">
        <h2 id="deliveries">Delivery log</h2>
        <button type="button" onClick={toFirstPage}>
          Refresh log
        </button>
      </div>
      <p class="muted">Newest first; entries are kept 30 days. Failed attempts are retried after 1 min, 5 min, 30 min, 2 h, 6 h and 12 h.</p>
      <Loaded resource={deliveries} what="deliveries" isEmpty={(d) => d.deliveries.length === 0} empty="No delivery yet. Send a test ping to see one.">
        {(data) => (
          <>
            <Table caption="Deliveries, newest first" columns={['Created', 'Event', 'Status', 'Attempts', 'Next attempt', 'Delivery']}>
              {data.deliveries.map((delivery) => (
                <DeliveryRow key={`${delivery.delivery_id}:${delivery.updated_at}`} listed={delivery} path={path} />
              ))}
            </Table>
            <Pager paging={paging} next={data.cursor} busy={deliveries.loading} labels={['Newer', 'Older']} />
          </>
        )}
      </Loaded>
    </section>
  );
}

function Actions({ webhook, path, onChange }: { webhook: Schemas['Webhook']; path: Path; onChange: (webhook: Schemas['Webhook'] | null, ping?: Delivery) => void }) {
  const [ping, setPing] = useState<Delivery | null>(null);
  const test = useAction(async () => {
    const { delivery } = await call(api.POST('/v1/webhooks/{webhook_id}/test', path));
    setPing(delivery);
    onChange(webhook, delivery);
  });
  const status = useAction(async (to: Schemas['Webhook']['status']) => {
    onChange((await call(api.PATCH('/v1/webhooks/{webhook_id}', { ...path, body: { status: to } }))).webhook);
  });
  const last = ping?.attempts.at(-1);
  return (
    <>
      <div class="actions">
        <button type="button" class="primary" onClick={() => void test.run()} disabled={test.busy}>
          {test.busy ? 'Sending…' : 'Send test ping'}
        </button>
        {webhook.status === 'active' ? (
          <button type="button" onClick={() => void status.run('disabled')} disabled={status.busy}>
            Disable
          </button>
        ) : (
          <button type="button" onClick={() => void status.run('active')} disabled={status.busy}>
            Enable
          </button>
        )}
        <ConfirmButton
          label="Delete"
          title={`Delete the webhook to ${webhook.endpoint_url}?`}
          confirmLabel="Delete webhook"
          danger
          onConfirm={() => call(api.DELETE('/v1/webhooks/{webhook_id}', path)).then(() => onChange(null))}
        >
          <p>Its pending deliveries are dropped and its delivery log goes with it.</p>
        </ConfirmButton>
      </div>
      <ErrorText error={test.error ?? status.error} />
      {ping && last && (
        <p class={ping.status === 'succeeded' ? 'notice' : 'error'} role="status">
          Test ping {ping.status}: {last.http_status === null ? (last.error ?? 'no answer') : `HTTP ${last.http_status}`} in {last.latency_ms} ms.
        </p>
      )}
    </>
  );
}

export function WebhookDetailPage({ webhook_id }: { webhook_id: string }) {
  const { route } = useLocation();
  const path: Path = { params: { path: { webhook_id } } };
  const got = useResource(() => call(api.GET('/v1/webhooks/{webhook_id}', path)), [webhook_id]);
  const [current, setCurrent] = useState<Schemas['Webhook'] | null>(null);
  const [refreshes, setRefreshes] = useState(0);
  const webhook = current?.webhook_id === webhook_id ? current : got.data?.webhook;
  return (
    <>
      <PageTitle title="Webhook" />
      <p>
        <a href="/webhooks">All webhooks</a>
      </p>
      <Loaded resource={got} what="the webhook">
        {() =>
          webhook && (
            <>
              <dl class="facts">
                <dt>Endpoint</dt>
                <dd>
                  <code>{webhook.endpoint_url}</code>
                </dd>
                <dt>Status</dt>
                <dd>
                  <Status value={webhook.status} />
                  {webhook.status === 'disabled' && <span class="muted"> no new deliveries; pending retries end failed, unsent</span>}
                </dd>
                <dt>Events</dt>
                <dd>{webhook.events.join(', ')}</dd>
                <dt>Webhook id</dt>
                <dd>
                  <ShortId value={webhook.webhook_id} label="webhook id" />
                </dd>
                <dt>Registered</dt>
                <dd>
                  <Time ms={webhook.created_at} />
                </dd>
                <dt>Changed</dt>
                <dd>
                  <Time ms={webhook.updated_at} />
                </dd>
              </dl>
              <Actions
                webhook={webhook}
                path={path}
                onChange={(changed, ping) => {
                  if (changed === null) return route('/webhooks');
                  setCurrent(changed);
                  if (ping) setRefreshes((n) => n + 1);
                }}
              />
              <DeliveryLog path={path} refreshes={refreshes} />
            </>
          )
        }
      </Loaded>
    </>
  );
}
