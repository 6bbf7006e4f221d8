// The deliveries worker reads each webhook once per batch of delivery messages
// (domain/webhooks/scheduled-delivery.ts; docs/COST.md, Hot path), against DynamoDB Local and a
// local receiver: every attempt of the batch is made and recorded as with a read per message,
// with one GetItem per webhook of the batch instead of one per message; and the next batch
// reads again, so a webhook deleted after a batch takes its later messages with it.
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fanOutEvent, type FanOutPorts } from '../../lambdas/domain/webhooks/fan-out.js';
import type { QueueMessage } from '../../lambdas/domain/ports.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { handler } from '../../lambdas/workers/webhook-deliveries.js';
import { lambdaContext } from '../../local/lambda-context.js';
import { toSqsEvent } from '../../local/workers.js';
import type { Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const stack = useLedgerStack({ env: { LEDGER_WEBHOOK_ALLOW_LOOPBACK: '1' } });
let owner: Api;
let orgId: string;
let receiver: WebhookReceiver;
let webhookIds: string[];

async function registerWebhook(path: string): Promise<string> {
  const res = await owner('POST', '/v1/webhooks', { endpoint_url: `${receiver.origin}/${path}`, events: ['operation.accepted'], secret: 'whsec-test-0123456789abcdef' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook.webhook_id as string;
}

/** The delivery messages the fan-out sends for `events` operation.accepted events, one per webhook each. */
async function deliveryMessages(events: number): Promise<string[]> {
  const bodies: string[] = [];
  const queue = { send: async (_name: string, message: QueueMessage) => void bodies.push(JSON.stringify(message.body)) } as unknown as FanOutPorts['queue'];
  for (let i = 0; i < events; i++) {
    const data = { operation_id: randomUUID(), agent_id: 'agent-1' };
    await fanOutEvent({ queue }, { event: 'operation.accepted', event_id: randomUUID(), org_id: orgId, timestamp: Date.now(), data });
  }
  return bodies;
}

/** Runs one batch through the worker as the queue would, counting the GetItem calls it makes. */
async function deliverBatch(bodies: string[]): Promise<{ response: SQSBatchResponse; gets: number }> {
  const messages = bodies.map((body) => ({ messageId: randomUUID(), body, receiveCount: 1, sentAt: Date.now(), firstReceivedAt: Date.now() }));
  const send = vi.spyOn(dynamo(), 'send');
  try {
    const response = await handler(toSqsEvent('deliveries', messages), lambdaContext('WebhookDeliveries', 30));
    return { response, gets: send.mock.calls.filter(([command]) => command instanceof GetCommand).length };
  } finally {
    send.mockRestore();
  }
}

beforeAll(async () => {
  receiver = await startReceiver();
  const org = await stack.org('org_owner');
  [owner, orgId] = [org.api.org_owner, org.orgId];
  webhookIds = [await registerWebhook('first'), await registerWebhook('second')];
});
afterAll(() => receiver?.close());

describe('webhook deliveries of a batch of messages', () => {
  it('makes and records every attempt, with one GetItem per webhook instead of one per message', async () => {
    const bodies = await deliveryMessages(3);
    expect(bodies).toHaveLength(6);
    const before = receiver.received.length;
    const { response, gets } = await deliverBatch(bodies);
    expect(response.batchItemFailures).toEqual([]);
    expect(gets).toBe(2);
    const arrived = receiver.received.slice(before);
    expect(arrived.map((delivery) => delivery.path).sort()).toEqual(['/first', '/first', '/first', '/second', '/second', '/second']);
    for (const webhookId of webhookIds) {
      const listed = await owner('GET', `/v1/webhooks/${webhookId}/deliveries`);
      expect(listed.status).toBe(200);
      const deliveries = listed.body.deliveries as { status: string }[];
      expect(deliveries.filter((delivery) => delivery.status === 'succeeded')).toHaveLength(3);
    }
  });

  it('reads again for the next batch: a webhook deleted in between is not sent to', async () => {
    const bodies = await deliveryMessages(2);
    expect((await owner('DELETE', `/v1/webhooks/${webhookIds[1]}`)).status).toBe(200);
    const before = receiver.received.length;
    const { response, gets } = await deliverBatch(bodies);
    expect(response.batchItemFailures).toEqual([]);
    expect(gets).toBe(2);
    expect(receiver.received.slice(before).map((delivery) => delivery.path)).toEqual(['/first', '/first']);
  });
});
