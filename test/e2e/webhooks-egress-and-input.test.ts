// Webhooks as an attacker would try them, on a stack WITHOUT LEDGER_WEBHOOK_ALLOW_LOOPBACK
// (docs/WEBHOOKS.md, Egress policy): internal addresses refused at registration in any
// spelling and by name; a name that turns internal after registration (DNS rebinding) is
// refused at delivery and the local receiver never sees a byte; every bad input is
// VALIDATION_ERROR or NOT_FOUND; another organization's webhook looks missing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import type { Api, Loose } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { fakeDns, type FakeDns } from '../support/webhook-dns.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const stack = useLedgerStack();
const SECRET = 'egress-test-secret-0123';
const PUBLIC = '93.184.216.34';

let dns: FakeDns;
let receiver: WebhookReceiver;
let owner: Api;
let orgId: string;
let outsider: Api;

beforeAll(async () => {
  dns = fakeDns({ 'hooks.example.test': [PUBLIC], 'internal.example.test': ['10.0.0.7'], 'metadata.example.test': [PUBLIC, '169.254.169.254'] });
  receiver = await startReceiver();
  const org = await stack.org('org_owner');
  ({ orgId } = org);
  owner = org.api.org_owner;
  outsider = (await stack.org('org_owner')).api.org_owner;
});
afterAll(async () => {
  dns?.restore();
  await receiver?.close();
});

const register = (body: Record<string, unknown>, api = owner) => api('POST', '/v1/webhooks', body);
const valid = { endpoint_url: 'https://hooks.example.test/in', events: ['agent.status_changed'], secret: SECRET };

function expectValidationError(res: { status: number; body: Loose }) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
}

describe('registration refuses what the egress policy forbids', () => {
  const port = () => new URL(receiver.origin).port;

  const cases: [string, () => string][] = [
    ['plain http to the loopback receiver', () => receiver.origin],
    ['https to 127.0.0.1', () => `https://127.0.0.1:${port()}/`],
    ['decimal 2130706433', () => `https://2130706433:${port()}/`],
    ['hex short form 0x7f.1', () => `https://0x7f.1:${port()}/`],
    ['IPv4-mapped IPv6', () => `https://[::ffff:127.0.0.1]:${port()}/`],
    ['localhost with a trailing dot', () => 'https://localhost./'],
    ['the metadata address', () => 'https://169.254.169.254/latest/meta-data/'],
    ['the IPv6 metadata address', () => 'https://[fd00:ec2::254]/'],
    ['CGNAT', () => 'https://100.64.1.1/'],
    ['octal private', () => 'https://0300.0250.0.1/'],
    ['a name resolving to a private address', () => 'https://internal.example.test/in'],
    ['a name with one link-local address among public ones', () => 'https://metadata.example.test/in'],
    ['a name that does not resolve', () => 'https://unknown-name.example.test/in'],
    ['plain http to a public name', () => 'http://hooks.example.test/in'],
    ['userinfo', () => 'https://user:pw@hooks.example.test/in'],
  ];
  it.each(cases)('%s', async (_what, url) => {
    const res = await register({ ...valid, endpoint_url: url() });
    expectValidationError(res);
    expect(res.body.error.message).toMatch(/egress policy|endpoint_url/);
  });
});

describe('DNS rebinding: a name that turns internal after registration is refused at delivery', () => {
  it('the receiver on loopback never gets the delivery; the log says why', async () => {
    const name = 'rebind.example.test';
    dns.set(name, PUBLIC);
    const created = await register({ ...valid, endpoint_url: `https://${name}:${new URL(receiver.origin).port}/in` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const webhookId = created.body.webhook.webhook_id;
    dns.set(name, '127.0.0.1');

    const chain = new ClientChain(orgId, uniqueAgentId('egress'), newKey());
    await registerAgent(owner, chain.agentId, [chain.key]);
    expect((await owner('POST', `/v1/agents/${chain.agentId}/freeze`, { reason: 'rebinding' })).status).toBe(200);
    await stack.queue.idle();
    const [delivery] = (await owner('GET', `/v1/webhooks/${webhookId}/deliveries`)).body.deliveries;
    expect(delivery).toMatchObject({ event: 'agent.status_changed', status: 'pending' });
    expect(delivery.attempts[0]).toMatchObject({ http_status: null, manual: false });
    expect(delivery.attempts[0].error).toMatch(/refused by the egress policy: .*127\.0\.0\.1.*loopback/);

    // The ping says the same; and a name that moved to the metadata address too.
    const ping = await owner('POST', `/v1/webhooks/${webhookId}/test`);
    expect(ping.body.delivery).toMatchObject({ event: 'ping', status: 'failed' });
    dns.set(name, '169.254.169.254');
    const again = await owner('POST', `/v1/webhooks/${webhookId}/deliveries/${delivery.delivery_id}/redeliver`);
    expect(again.body.delivery.attempts.at(-1).error).toMatch(/link-local/);
    expect(receiver.received).toHaveLength(0);
  });
});

describe('bad input', () => {
  it.each([
    ['no body', undefined],
    ['missing endpoint_url', { events: valid.events, secret: SECRET }],
    ['missing events', { endpoint_url: valid.endpoint_url, secret: SECRET }],
    ['missing secret', { endpoint_url: valid.endpoint_url, events: valid.events }],
    ['endpoint_url not a string', { ...valid, endpoint_url: 42 }],
    ['endpoint_url over 2048 characters', { ...valid, endpoint_url: `https://hooks.example.test/${'a'.repeat(2030)}` }],
    ['endpoint_url not a URL', { ...valid, endpoint_url: 'hooks.example.test' }],
    ['events empty', { ...valid, events: [] }],
    ['an unknown event', { ...valid, events: ['operation.rejected'] }],
    ['ping is not subscribable', { ...valid, events: ['ping'] }],
    ['events not an array', { ...valid, events: 'epoch.created' }],
    ['secret of 15 characters', { ...valid, secret: 'a'.repeat(15) }],
    ['secret of 257 characters', { ...valid, secret: 'a'.repeat(257) }],
    ['an unknown field', { ...valid, status: 'disabled' }],
  ])('%s: VALIDATION_ERROR', async (_what, body) => {
    expectValidationError(await register(body as Record<string, unknown>));
  });

  it('secrets of 16 and 256 characters are accepted', async () => {
    for (const secret of ['s'.repeat(16), 's'.repeat(256)]) {
      const res = await register({ ...valid, secret });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect((await owner('DELETE', `/v1/webhooks/${res.body.webhook.webhook_id}`)).status).toBe(200);
    }
  });

  it('ids: not a UUID is VALIDATION_ERROR, an unknown one NOT_FOUND, on every route', async () => {
    const unknown = randomUUID();
    const created = await register(valid);
    const webhookId = created.body.webhook.webhook_id;
    for (const [method, path, body] of [
      ['GET', '/v1/webhooks/{id}'],
      ['PATCH', '/v1/webhooks/{id}', { status: 'active' }],
      ['DELETE', '/v1/webhooks/{id}'],
      ['POST', '/v1/webhooks/{id}/test'],
      ['GET', '/v1/webhooks/{id}/deliveries'],
      ['POST', `/v1/webhooks/{id}/deliveries/${randomUUID()}/redeliver`],
    ] as const) {
      expectValidationError(await owner(method, path.replace('{id}', 'not-a-uuid'), body));
      const missing = await owner(method, path.replace('{id}', unknown), body);
      expect(missing.status, `${method} ${path}`).toBe(404);
      expect(missing.body.error.code).toBe('NOT_FOUND');
    }
    const missingDelivery = await owner('POST', `/v1/webhooks/${webhookId}/deliveries/${randomUUID()}/redeliver`);
    expect(missingDelivery.body.error.code).toBe('NOT_FOUND');
    expectValidationError(await owner('POST', `/v1/webhooks/${webhookId}/deliveries/nope/redeliver`));
    expectValidationError(await owner('PATCH', `/v1/webhooks/${webhookId}`, { status: 'paused' }));
    expectValidationError(await owner('PATCH', `/v1/webhooks/${webhookId}`, {}));
    expectValidationError(await owner('GET', `/v1/webhooks/${webhookId}/deliveries?limit=0`));
    expectValidationError(await owner('GET', `/v1/webhooks/${webhookId}/deliveries?limit=101`));
    expectValidationError(await owner('GET', `/v1/webhooks/${webhookId}/deliveries?cursor=${Buffer.from('d1.0000000000000#x').toString('base64url')}`));
  });
});

describe('tenancy', () => {
  it("another organization's webhook is missing on every route, and listing shows only one's own", async () => {
    const created = await register(valid);
    const webhookId = created.body.webhook.webhook_id;
    for (const [method, path, body] of [
      ['GET', `/v1/webhooks/${webhookId}`],
      ['PATCH', `/v1/webhooks/${webhookId}`, { status: 'active' }],
      ['PATCH', `/v1/webhooks/${webhookId}`, { status: 'disabled' }],
      ['DELETE', `/v1/webhooks/${webhookId}`],
      ['POST', `/v1/webhooks/${webhookId}/test`],
      ['GET', `/v1/webhooks/${webhookId}/deliveries`],
      ['POST', `/v1/webhooks/${webhookId}/deliveries/${randomUUID()}/redeliver`],
    ] as const) {
      const res = await outsider(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain('hooks.example.test');
    }
    expect((await outsider('GET', '/v1/webhooks')).body.webhooks.map((w: Loose) => w.webhook_id)).not.toContain(webhookId);
    expect((await owner('GET', `/v1/webhooks/${webhookId}`)).body.webhook.status).toBe('active');
  });

  it("an organization's events never reach another organization's webhook", async () => {
    dns.set('tenant.example.test', PUBLIC);
    const theirs = await register({ ...valid, endpoint_url: 'https://tenant.example.test/in' }, outsider);
    expect(theirs.status).toBe(201);
    const chain = new ClientChain(orgId, uniqueAgentId('tenant'), newKey());
    await registerAgent(owner, chain.agentId, [chain.key]);
    expect((await owner('POST', `/v1/agents/${chain.agentId}/freeze`, { reason: 'tenancy' })).status).toBe(200);
    await stack.queue.idle();
    expect((await outsider('GET', `/v1/webhooks/${theirs.body.webhook.webhook_id}/deliveries`)).body.deliveries).toEqual([]);
  });
});
