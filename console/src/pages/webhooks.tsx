/**
 * Webhooks (docs/API.md §4.9, §6; docs/WEBHOOKS.md), for org_owner and security_admin: the
 * organization's endpoints and registering one. The secret is made here (or pasted), sent once
 * and shown once to copy: the service stores it encrypted and never returns it.
 */
import { useState } from 'preact/hooks';
import { api, call, type RequestOf, type Schemas } from '../api/client.js';
import { submitTo, useAction } from '../components/action.js';
import { CopyButton } from '../components/copy.js';
import { PageTitle, Status } from '../components/page.js';
import { ErrorText, Loaded, useResource } from '../components/states.js';
import { Table } from '../components/table.js';
import { Time } from '../components/time.js';

type WebhookEvent = Schemas['Webhook']['events'][number];

/** docs/API.md §6.1; keyed by the generated event type, so an event the API adds fails the type check until it is listed. */
const EVENTS: Record<WebhookEvent, string> = {
  'operation.accepted': 'an operation record was accepted',
  'epoch.created': 'an epoch was sealed',
  'agent.status_changed': 'an agent was frozen, unfrozen or revoked',
};

/** 32 random bytes, base64url: well within the 16 to 256 characters a secret may have. */
function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function RegisterWebhook({ onRegistered }: { onRegistered: () => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['operation.accepted']);
  const [secret, setSecret] = useState(newSecret);
  const [registered, setRegistered] = useState<{ webhook: Schemas['Webhook']; secret: string } | null>(null);
  const register = useAction(async () => {
    const body: RequestOf<'RegisterWebhook'> = { endpoint_url: url.trim(), events, secret };
    const { webhook } = await call(api.POST('/v1/webhooks', { body }));
    setRegistered({ webhook, secret });
    setUrl('');
    setSecret(newSecret());
    onRegistered();
  });
  const toggle = (event: WebhookEvent, on: boolean) => setEvents(on ? [...events, event] : events.filter((e) => e !== event));
  return (
    <section aria-labelledby="register">
      <h2 id="register">Register an endpoint</h2>
      <p class="muted">
        HTTPS to a public address; each delivery is a signed POST (<code>X-Service-Signature</code>, <span class="nobreak">HMAC-SHA256</span> with the secret).
      </p>
      <form onSubmit={submitTo(register.run)}>
        <label>
          Endpoint URL
          <input type="url" required maxLength={2048} value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://hooks.example.com/ledger" />
        </label>
        <fieldset aria-describedby={events.length === 0 ? 'events-error' : undefined}>
          <legend>Events</legend>
          {(Object.keys(EVENTS) as WebhookEvent[]).map((event) => (
            <label key={event} class="inline-label">
              <input type="checkbox" checked={events.includes(event)} onChange={(e) => toggle(event, e.currentTarget.checked)} />
              <code>{event}</code> <span class="muted">{EVENTS[event]}</span>
            </label>
          ))}
        </fieldset>
        {events.length === 0 && <ErrorText id="events-error" error={new Error('Choose at least one event.')} />}
        <label>
          Secret <span class="muted">(16 to 256 characters; made here, sent once, never shown by the service)</span>
          <input type="password" autoComplete="off" required minLength={16} maxLength={256} value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
        </label>
        <div class="actions">
          <button type="button" onClick={() => setSecret(newSecret())}>
            New random secret
          </button>
          <button type="submit" class="primary" disabled={register.busy || events.length === 0}>
            Register webhook
          </button>
        </div>
      </form>
      <ErrorText error={register.error} />
      {registered && (
        <div class="secret" role="region" aria-label="The new webhook's secret">
          <h3>Registered {registered.webhook.endpoint_url}</h3>
          <p>Give your endpoint this secret to check signatures with. It is not shown again.</p>
          <p class="token-line">
            <code data-secret>{registered.secret}</code> <CopyButton text={registered.secret} label="the webhook secret" />
          </p>
          <p>
            <a href={`/webhooks/${registered.webhook.webhook_id}`}>Open the webhook and send a test ping</a>
          </p>
        </div>
      )}
    </section>
  );
}

export function WebhooksPage() {
  const webhooks = useResource(() => call(api.GET('/v1/webhooks')), []);
  return (
    <>
      <PageTitle title="Webhooks" />
      <Loaded resource={webhooks} what="webhooks" isEmpty={(d) => d.webhooks.length === 0} empty="No webhook registered yet.">
        {(data) => (
          <Table caption="Registered webhooks" columns={['Endpoint', 'Events', 'Status', 'Registered']}>
            {data.webhooks.map((webhook) => (
              <tr key={webhook.webhook_id}>
                <td>
                  <a href={`/webhooks/${webhook.webhook_id}`}>{webhook.endpoint_url}</a>
                </td>
                <td>{webhook.events.join(', ')}</td>
                <td>
                  <Status value={webhook.status} />
                </td>
                <td>
                  <Time ms={webhook.created_at} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Loaded>
      <RegisterWebhook onRegistered={webhooks.reload} />
    </>
  );
}
