// Webhooks end to end against the local stack (docs/WEBHOOKS.md; docs/API.md §4.9, §6): a
// local receiver gets all three event types signed and with the docs/API.md §6.2 headers; a
// receiver failing on purpose sees the whole retry schedule (the in-process queue's clock
// driven forward), the dead letter, redeliver, disable and re-enable; a hanging endpoint
// holds up no other; the delivery log pages newest first.
import { Metrics } from '@aws-lambda-powertools/metrics';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { config } from '../../lambdas/config.js';
import { MetricNames } from '../../lambdas/metric-names.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import type { Api, Loose } from '../support/http-client.js';
import { seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { signatureValid, startReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.js';

const EPOCH_MS = 1000;
const stack = useLedgerStack({ env: { LEDGER_WEBHOOK_ALLOW_LOOPBACK: '1', LEDGER_EPOCH_MS: String(EPOCH_MS), LEDGER_EPOCH_GRACE_MS: '100' } });

const SECRET = 'whsec-test-0123456789abcdef';
const MINUTE = 60_000;
let receiver: WebhookReceiver;
let owner: Api;
let orgId: string;
let ownerId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  const org = await stack.org('org_owner');
  orgId = org.orgId;
  owner = org.api.org_owner;
  ownerId = org.users.org_owner.userId;
});
afterAll(() => receiver?.close());

async function registerWebhook(path: string, events: string[], api = owner): Promise<string> {
  const res = await api('POST', '/v1/webhooks', { endpoint_url: `${receiver.origin}${path}`, events, secret: SECRET });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook.webhook_id as string;
}

const to = (path: string) => (received: ReceivedDelivery[]) => received.filter((delivery) => delivery.path === path);
const bodyOf = (delivery: ReceivedDelivery): Loose => JSON.parse(delivery.body);

async function newAgent(): Promise<ClientChain> {
  const chain = new ClientChain(orgId, uniqueAgentId('hook'), newKey());
  await registerAgent(owner, chain.agentId, [chain.key]);
  return chain;
}

/** Lets the queue's clock run forward until nothing is waiting on the deliveries queue, or `until` holds. */
async function runQueueClock(until: () => boolean = () => false, maxSteps = 200): Promise<void> {
  for (let step = 0; step < maxSteps; step++) {
    await stack.queue.idle();
    if (until() || stack.queue.stats('deliveries').stored === 0) return;
    // SQS delays a message by at most 15 minutes: longer waits are hops of that size.
    stack.queue.advance(15 * MINUTE);
  }
  throw new Error('the deliveries queue did not settle');
}

async function deliveryLog(webhookId: string, query = ''): Promise<Loose> {
  const res = await owner('GET', `/v1/webhooks/${webhookId}/deliveries${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('an endpoint receives every event type, signed, with the docs/API.md §6.2 headers', () => {
  const path = '/all';
  let webhookId: string;
  let chain: ClientChain;
  const accepted: string[] = [];

  beforeAll(async () => {
    webhookId = await registerWebhook(path, ['operation.accepted', 'epoch.created', 'agent.status_changed']);
    chain = await newAgent();
    for (let i = 0; i < 3; i++) {
      const { res } = await chain.submit(owner);
      expect(res.status).toBe(200);
      accepted.push(res.body.receipt.operation_id);
    }
    expect((await owner('POST', `/v1/agents/${chain.agentId}/freeze`, { reason: 'webhook test' })).status).toBe(200);
    await receiver.waitFor((all) => {
      const events = to(path)(all).map((delivery) => bodyOf(delivery));
      return events.filter((body) => body.event === 'operation.accepted').length === 3 && events.some((body) => body.event === 'epoch.created') && events.some((body) => body.event === 'agent.status_changed');
    }, 20_000);
  });

  it('each delivery: body {event, delivery_id, org_id, timestamp, data}, the five headers, a valid signature', () => {
    const now = Math.floor(Date.now() / 1000);
    for (const delivery of to(path)(receiver.received)) {
      const body = bodyOf(delivery);
      expect(Object.keys(body).sort()).toEqual(['data', 'delivery_id', 'event', 'org_id', 'timestamp']);
      expect(body.org_id).toBe(orgId);
      expect(typeof body.timestamp).toBe('number');
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['x-service-webhook-event']).toBe(body.event);
      expect(delivery.headers['x-service-webhook-delivery-id']).toBe(body.delivery_id);
      expect(delivery.headers['x-service-webhook-id']).toBe(webhookId);
      const timestamp = Number(delivery.headers['x-service-webhook-timestamp']);
      expect(Math.abs(timestamp - now)).toBeLessThan(60);
      expect(delivery.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(signatureValid(SECRET, delivery)).toBe(true);
      expect(signatureValid('another-secret-of-16+', delivery)).toBe(false);
      expect(signatureValid(SECRET, { ...delivery, body: delivery.body.replace(orgId, 'x') })).toBe(false);
    }
  });

  it('the data of each event', () => {
    const bodies = to(path)(receiver.received).map(bodyOf);
    const operations = bodies.filter((body) => body.event === 'operation.accepted');
    expect(operations.map((body) => body.data).sort((a, b) => a.operation_id.localeCompare(b.operation_id))).toEqual(
      accepted.sort().map((operation_id) => ({ operation_id, agent_id: chain.agentId })),
    );
    expect(bodies.find((body) => body.event === 'agent.status_changed').data).toEqual({ agent_id: chain.agentId, from: 'active', to: 'frozen', reason: 'webhook test' });
    const epoch = bodies.find((body) => body.event === 'epoch.created').data;
    expect(Object.keys(epoch).sort()).toEqual(['end_time', 'epoch_id', 'leaf_count', 'root_hash', 'start_time']);
    expect(epoch.end_time - epoch.start_time).toBe(EPOCH_MS);
    expect(new Set(bodies.map((body) => body.delivery_id)).size).toBe(bodies.length);
  });

  it('the delivery log lists them newest first, succeeded at the first attempt, paged by cursor', async () => {
    await stack.queue.idle();
    const all = (await deliveryLog(webhookId, '?limit=100')).deliveries;
    expect(all.length).toBe(to(path)(receiver.received).length);
    expect(all.map((d: Loose) => d.created_at)).toEqual([...all.map((d: Loose) => d.created_at)].sort((a, b) => b - a));
    for (const delivery of all) {
      expect(delivery).toMatchObject({ webhook_id: webhookId, status: 'succeeded', next_attempt_at: null });
      expect(delivery.attempts).toEqual([{ attempted_at: expect.any(Number), http_status: 204, error: null, latency_ms: expect.any(Number), response_excerpt: '', manual: false }]);
    }
    const first = await deliveryLog(webhookId, '?limit=2');
    const second = await deliveryLog(webhookId, `?limit=2&cursor=${first.cursor}`);
    expect([...first.deliveries, ...second.deliveries].map((d: Loose) => d.delivery_id)).toEqual(all.slice(0, 4).map((d: Loose) => d.delivery_id));
    expect((await owner('GET', `/v1/webhooks/${webhookId}/deliveries?cursor=bm90LWEtY3Vyc29y`)).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('a re-sent event keeps its delivery id and is delivered once; an operation.accepted message that is not the receipt\'s is not delivered', async () => {
    const before = to(path)(receiver.received).length;
    const resent = to(path)(receiver.received).map(bodyOf).find((body) => body.event === 'agent.status_changed');
    const log = await owner('GET', `/v1/admin/events?limit=100`);
    const freeze = log.body.events.find((event: Loose) => event.action === 'agent.freeze' && event.target_id === chain.agentId);
    const message = { event: 'agent.status_changed', event_id: freeze.event_id, org_id: orgId, timestamp: resent.timestamp, data: resent.data };
    await stack.queue.send('events', { body: message });
    await stack.queue.send('events', { body: message });
    // A surplus operation.accepted (its message id is not the operation's queue_message_id).
    await stack.queue.send('events', { body: { event: 'operation.accepted', org_id: orgId, timestamp: Date.now(), data: { operation_id: accepted[0], agent_id: chain.agentId } } });
    await stack.queue.idle();
    expect(to(path)(receiver.received).length).toBe(before);
  });
});

describe('retries: a failing endpoint sees the whole schedule, then the dead-letter queue; redeliver; disable', () => {
  const path = '/failing';
  let webhookId: string;
  let chain: ClientChain;

  beforeAll(async () => {
    receiver.answer((delivery) => (delivery.path === path ? { status: 503, body: 'down for maintenance' } : { status: 204 }));
    webhookId = await registerWebhook(path, ['agent.status_changed']);
    chain = await newAgent();
  });

  it('7 attempts with backoff 1 min, 5 min, 30 min, 2 h, 6 h, 12 h (+ up to 20% jitter), same delivery id and body; then failed, dead-lettered and counted', async () => {
    // On the prototype: the in-process worker may hold its own instance of lambdas/metrics.ts.
    const added = vi.spyOn(Metrics.prototype, 'addMetric');
    const dimensions = vi.spyOn(Metrics.prototype, 'addDimensions');
    expect((await owner('POST', `/v1/agents/${chain.agentId}/freeze`, { reason: 'retry test' })).status).toBe(200);
    const schedule = [60, 300, 1800, 7200, 21600, 43200];
    let delivery: Loose;
    for (let attempt = 1; attempt <= 7; attempt++) {
      await runQueueClock(() => to(path)(receiver.received).length >= attempt);
      expect(to(path)(receiver.received).length).toBe(attempt);
      await stack.queue.idle();
      [delivery] = (await deliveryLog(webhookId)).deliveries;
      expect(delivery.attempts).toHaveLength(attempt);
      expect(delivery.attempts.at(-1)).toMatchObject({ http_status: 503, error: null, response_excerpt: 'down for maintenance', manual: false });
      if (attempt < 7) {
        expect(delivery.status).toBe('pending');
        const wait = (delivery.next_attempt_at - delivery.attempts.at(-1).attempted_at) / 1000;
        expect(wait).toBeGreaterThanOrEqual(schedule[attempt - 1]! - 1);
        expect(wait).toBeLessThanOrEqual(schedule[attempt - 1]! * 1.2 + 1);
      }
    }
    expect(delivery).toMatchObject({ status: 'failed', next_attempt_at: null });
    await runQueueClock();
    expect(to(path)(receiver.received)).toHaveLength(7);
    const attempts = to(path)(receiver.received);
    expect(new Set(attempts.map((a) => a.headers['x-service-webhook-delivery-id']))).toEqual(new Set([delivery.delivery_id]));
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    expect(attempts.every((a) => signatureValid(SECRET, a))).toBe(true);
    const dead = stack.queue.deadLetters('deliveries').map((letter) => JSON.parse(letter.body));
    expect(dead.filter((letter) => letter.delivery_id === delivery.delivery_id)).toEqual([expect.objectContaining({ webhook_id: webhookId, attempt: 8 })]);
    // The metrics the Webhooks-AttemptFailures and Webhooks-DeliveriesFailed alarms watch (lib/alarms.ts).
    const names = added.mock.calls.map(([name]) => name);
    expect(names.filter((name) => name === MetricNames.WebhookDeliveriesFailed)).toHaveLength(1);
    expect(dimensions.mock.calls.filter(([added]) => added.outcome === 'failed')).toHaveLength(7);
    added.mockRestore();
    dimensions.mockRestore();
  });

  it('redeliver sends the same delivery again now, logged as a manual attempt', async () => {
    receiver.answer(() => ({ status: 200, body: 'ok' }));
    const [failed] = (await deliveryLog(webhookId)).deliveries;
    const res = await owner('POST', `/v1/webhooks/${webhookId}/deliveries/${failed.delivery_id}/redeliver`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.delivery).toMatchObject({ delivery_id: failed.delivery_id, status: 'succeeded' });
    expect(res.body.delivery.attempts).toHaveLength(8);
    expect(res.body.delivery.attempts.at(-1)).toMatchObject({ http_status: 200, manual: true, response_excerpt: 'ok' });
    const last = to(path)(receiver.received).at(-1)!;
    expect(last.headers['x-service-webhook-delivery-id']).toBe(failed.delivery_id);
    expect(signatureValid(SECRET, last)).toBe(true);
  });

  it('a webhook whose deliveries all failed for 3 days is disabled (admin event), gets nothing, and PATCH enables it', async () => {
    receiver.answer((delivery) => (delivery.path === path ? { status: 500 } : { status: 204 }));
    // The run of failures began 3 days and a minute ago (waiting that long is not a test).
    await dynamo().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: { pk: `ORG#${orgId}`, sk: `WEBHOOK#${webhookId}` },
        UpdateExpression: 'SET failing_since = :then',
        ExpressionAttributeValues: { ':then': Date.now() - 3 * 24 * 60 * MINUTE - MINUTE },
      }),
    );
    const before = to(path)(receiver.received).length;
    expect((await owner('POST', `/v1/agents/${chain.agentId}/unfreeze`, { reason: 'disable test' })).status).toBe(200);
    await receiver.waitFor((all) => to(path)(all).length === before + 1);
    await stack.queue.idle();
    expect((await owner('GET', `/v1/webhooks/${webhookId}`)).body.webhook.status).toBe('disabled');
    const events = (await owner('GET', '/v1/admin/events?limit=100')).body.events;
    expect(events.find((event: Loose) => event.action === 'webhook.disable' && event.target_id === webhookId)).toMatchObject({ actor: 'service' });

    // Disabled: new events are not delivered to it, and its pending retries are not sent.
    expect((await owner('POST', `/v1/agents/${chain.agentId}/freeze`, { reason: 'while disabled' })).status).toBe(200);
    await runQueueClock();
    expect(to(path)(receiver.received).length).toBe(before + 1);
    const [pending] = (await deliveryLog(webhookId)).deliveries;
    expect(pending.status).toBe('failed');
    expect(pending.attempts.at(-1).error).toBe('not sent: the webhook is disabled');

    const enabled = await owner('PATCH', `/v1/webhooks/${webhookId}`, { status: 'active' });
    expect(enabled.status).toBe(200);
    expect(enabled.body.webhook.status).toBe('active');
    const after = (await owner('GET', '/v1/admin/events?limit=100')).body.events;
    expect(after.some((event: Loose) => event.action === 'webhook.enable' && event.target_id === webhookId)).toBe(true);
    receiver.answer(() => ({ status: 204 }));
    expect((await owner('POST', `/v1/agents/${chain.agentId}/unfreeze`, { reason: 'enabled again' })).status).toBe(200);
    await receiver.waitFor((all) => to(path)(all).some((delivery) => bodyOf(delivery).data.reason === 'enabled again'));
  });
});

describe('test, isolation, management', () => {
  it('test sends a ping now and answers its outcome', async () => {
    const webhookId = await registerWebhook('/ping', ['epoch.created']);
    const res = await owner('POST', `/v1/webhooks/${webhookId}/test`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.delivery).toMatchObject({ event: 'ping', status: 'succeeded', attempts: [expect.objectContaining({ http_status: 204, manual: true })] });
    const ping = to('/ping')(receiver.received).at(-1)!;
    expect(bodyOf(ping)).toMatchObject({ event: 'ping', delivery_id: res.body.delivery.delivery_id, org_id: orgId, data: { webhook_id: webhookId } });
    expect(signatureValid(SECRET, ping)).toBe(true);
  });

  it('an admin disables a webhook: it gets nothing, until enabled again; both are admin events with the admin as actor', async () => {
    const webhookId = await registerWebhook('/paused', ['agent.status_changed']);
    const chain = await newAgent();
    const disabled = await owner('PATCH', `/v1/webhooks/${webhookId}`, { status: 'disabled' });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expect(disabled.body.webhook).toMatchObject({ webhook_id: webhookId, status: 'disabled' });
    expect((await owner('PATCH', `/v1/webhooks/${webhookId}`, { status: 'disabled' })).body.webhook.status).toBe('disabled');
    expect((await owner('POST', `/v1/agents/${chain.agentId}/freeze`, { reason: 'while paused' })).status).toBe(200);
    await stack.queue.idle();
    expect(to('/paused')(receiver.received)).toEqual([]);
    expect((await deliveryLog(webhookId)).deliveries).toEqual([]);

    expect((await owner('PATCH', `/v1/webhooks/${webhookId}`, { status: 'active' })).body.webhook.status).toBe('active');
    expect((await owner('POST', `/v1/agents/${chain.agentId}/unfreeze`, { reason: 'resumed' })).status).toBe(200);
    await receiver.waitFor((all) => to('/paused')(all).length === 1);
    expect(bodyOf(to('/paused')(receiver.received)[0]!).data).toMatchObject({ agent_id: chain.agentId, reason: 'resumed' });
    const events = (await owner('GET', '/v1/admin/events?limit=100')).body.events.filter((event: Loose) => event.target_id === webhookId);
    // Newest first; the second PATCH to disabled changed nothing and logged nothing.
    expect(events.map((event: Loose) => [event.action, event.actor])).toEqual([
      ['webhook.enable', ownerId],
      ['webhook.disable', ownerId],
      ['webhook.register', ownerId],
    ]);
  });

  it('an endpoint that hangs does not delay the others', async () => {
    receiver.answer((delivery) => (delivery.path === '/hangs' ? 'hang' : { status: 204 }));
    const hanging = await registerWebhook('/hangs', ['operation.accepted']);
    await registerWebhook('/fast', ['operation.accepted']);
    const chain = await newAgent();
    // The hanging endpoint gets the first operations; the fast one must still get all of them promptly.
    const started = Date.now();
    for (let i = 0; i < 5; i++) expect((await chain.submit(owner)).res.status).toBe(200);
    await receiver.waitFor((all) => to('/fast')(all).length === 5, 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    // Each of the five attempts to the hanging endpoint is still open (10 s deadline) meanwhile.
    await receiver.waitFor((all) => to('/hangs')(all).length === 5, 5_000);
    expect((await owner('DELETE', `/v1/webhooks/${hanging}`)).body).toEqual({ success: true });
  });

  it('registration answers 201 {webhook} without the secret; list and get never show it; delete answers {success: true} and logs admin events', async () => {
    const res = await owner('POST', '/v1/webhooks', { endpoint_url: `${receiver.origin}/managed`, events: ['epoch.created', 'epoch.created'], secret: SECRET });
    expect(res.status).toBe(201);
    const webhook = res.body.webhook;
    expect(webhook).toEqual({
      webhook_id: expect.any(String),
      org_id: orgId,
      endpoint_url: `${receiver.origin}/managed`,
      events: ['epoch.created'],
      status: 'active',
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    const listed = await owner('GET', '/v1/webhooks');
    expect(listed.body.webhooks.map((w: Loose) => w.webhook_id)).toContain(webhook.webhook_id);
    const got = await owner('GET', `/v1/webhooks/${webhook.webhook_id}`);
    expect(got.body.webhook).toEqual(webhook);
    const events = await owner('GET', '/v1/admin/events?limit=100');
    for (const text of [JSON.stringify(res.body), JSON.stringify(listed.body), JSON.stringify(got.body), JSON.stringify(events.body)]) expect(text).not.toContain(SECRET);
    expect(events.body.events.find((e: Loose) => e.action === 'webhook.register' && e.target_id === webhook.webhook_id)).toMatchObject({ target_type: 'webhook' });

    expect(await owner('DELETE', `/v1/webhooks/${webhook.webhook_id}`)).toMatchObject({ status: 200, body: { success: true } });
    expect((await owner('GET', `/v1/webhooks/${webhook.webhook_id}`)).status).toBe(404);
    expect((await owner('DELETE', `/v1/webhooks/${webhook.webhook_id}`)).status).toBe(404);
    const after = await owner('GET', '/v1/admin/events?limit=100');
    expect(after.body.events.some((e: Loose) => e.action === 'webhook.delete' && e.target_id === webhook.webhook_id)).toBe(true);
  });
});

describe('the admin log and webhook endpoints', () => {
  // A compliance_auditor may not list webhooks, but read each endpoint's full URL (a
  // capability URL with ?token=) in GET /v1/admin/events; the log now keeps the origin only.
  it('records only the origin of an endpoint URL, so a capability in its path or query is not shown to other roles', async () => {
    const auditor = stack.api((await seedUser(orgId, 'compliance_auditor')).token);
    const capability = 'capability-7f3a9c1e';
    const res = await owner('POST', '/v1/webhooks', { endpoint_url: `${receiver.origin}/hooks/${capability}?token=${capability}`, events: ['epoch.created'], secret: SECRET });
    expect(res.status).toBe(201);
    expect((await owner('DELETE', `/v1/webhooks/${res.body.webhook.webhook_id}`)).status).toBe(200);
    expect((await auditor('GET', '/v1/webhooks')).status).toBe(403);
    const events = await auditor('GET', '/v1/admin/events?limit=100');
    expect(events.status).toBe(200);
    expect(JSON.stringify(events.body)).not.toContain(capability);
    const mine = events.body.events.filter((e: Loose) => e.target_id === res.body.webhook.webhook_id);
    expect(mine.map((e: Loose) => e.action).sort()).toEqual(['webhook.delete', 'webhook.register']);
    for (const event of mine) expect(JSON.parse(event.details).endpoint_origin).toBe(receiver.origin);
  });
});

