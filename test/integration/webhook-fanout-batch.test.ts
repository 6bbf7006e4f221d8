// The webhook fan-out reads each organization's webhooks once per batch of events
// (domain/webhooks/fan-out.ts; docs/COST.md, Hot path), against DynamoDB Local: the same
// deliveries as a read per event, one Query per organization of the batch, and a webhook
// registered after a batch is seen by the next batch.
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fanOutEvent, webhookListsOfBatch, type FanOutPorts } from '../../lambdas/domain/webhooks/fan-out.js';
import type { EventMessage } from '../../lambdas/domain/events.js';
import type { QueueMessage } from '../../lambdas/domain/ports.js';
import { dynamo } from '../../lambdas/store/clients.js';
import type { Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack({ env: { LEDGER_WEBHOOK_ALLOW_LOOPBACK: '1' } });
let orgA: { orgId: string; owner: Api };
let orgB: { orgId: string; owner: Api };

/** An SQS stand-in that records what the fan-out sends to the deliveries queue. */
function recordingQueue(): FanOutPorts & { sent: { delivery_id: string; webhook_id: string; org_id: string }[] } {
  const sent: { delivery_id: string; webhook_id: string; org_id: string }[] = [];
  const queue = {
    ping: async () => undefined,
    send: async (_name: string, message: QueueMessage) => {
      sent.push(message.body as { delivery_id: string; webhook_id: string; org_id: string });
      return randomUUID();
    },
    sendBatch: async () => [],
    sendToDeadLetters: async () => undefined,
  };
  return { queue: queue as unknown as FanOutPorts['queue'], sent };
}

async function registerWebhook(owner: Api, events: string[]): Promise<string> {
  const res = await owner('POST', '/v1/webhooks', { endpoint_url: `http://127.0.0.1:9/${randomUUID()}`, events, secret: 'whsec-test-0123456789abcdef' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook.webhook_id as string;
}

const accepted = (orgId: string): EventMessage => ({
  event: 'operation.accepted',
  event_id: randomUUID(),
  org_id: orgId,
  timestamp: Date.now(),
  data: { operation_id: randomUUID(), agent_id: 'agent-1' },
});

/** Runs `batch` as the worker does (all at once, one list per batch) and counts the Queries it makes. */
async function fanOutBatch(batch: EventMessage[], perBatch: boolean) {
  const ports = recordingQueue();
  const send = vi.spyOn(dynamo(), 'send');
  const webhooksOf = perBatch ? webhookListsOfBatch() : undefined;
  const counts = await Promise.all(batch.map((message) => fanOutEvent(ports, message, webhooksOf)));
  const queries = send.mock.calls.filter(([command]) => command instanceof QueryCommand).length;
  send.mockRestore();
  return { counts, sent: ports.sent, queries };
}

const byDelivery = (sent: { delivery_id: string }[]) => sent.map((s) => s.delivery_id).sort();

beforeAll(async () => {
  const [a, b] = await Promise.all([stack.org('org_owner'), stack.org('org_owner')]);
  orgA = { orgId: a.orgId, owner: a.api.org_owner };
  orgB = { orgId: b.orgId, owner: b.api.org_owner };
  await registerWebhook(orgA.owner, ['operation.accepted']);
  await registerWebhook(orgA.owner, ['epoch.created']);
  await registerWebhook(orgB.owner, ['operation.accepted', 'epoch.created']);
});
afterEach(() => vi.restoreAllMocks());

describe('webhook fan-out of a batch of events', () => {
  it('sends the same deliveries as a read per event, with one Query per organization instead of one per event', async () => {
    const batch = [accepted(orgA.orgId), accepted(orgB.orgId), accepted(orgA.orgId), accepted(orgA.orgId), accepted(orgB.orgId)];
    const perEvent = await fanOutBatch(batch, false);
    const perBatch = await fanOutBatch(batch, true);
    expect(perEvent.counts).toEqual([1, 1, 1, 1, 1]);
    expect(perBatch.counts).toEqual(perEvent.counts);
    expect(byDelivery(perBatch.sent)).toEqual(byDelivery(perEvent.sent));
    expect(perBatch.sent.filter((s) => s.org_id === orgA.orgId)).toHaveLength(3);
    expect(perEvent.queries).toBe(5);
    expect(perBatch.queries).toBe(2);
  });

  it('the next batch reads again: a webhook registered after a batch gets the events of the next one', async () => {
    const before = await fanOutBatch([accepted(orgB.orgId)], true);
    expect(before.counts).toEqual([1]);
    const added = await registerWebhook(orgB.owner, ['operation.accepted']);
    const after = await fanOutBatch([accepted(orgB.orgId), accepted(orgB.orgId)], true);
    expect(after.counts).toEqual([2, 2]);
    expect(after.sent.filter((s) => s.webhook_id === added)).toHaveLength(2);
  });
});
