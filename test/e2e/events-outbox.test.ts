/**
 * The events outbox (docs/EVENTS.md): an accepted operation's row is its operation.accepted
 * event, and the table's stream carries it to the events queue (lambdas/workers/forward-events.ts,
 * polled locally by local/stream-poller.ts as the DynamoDB event source does in AWS). Exactly
 * one event per accepted operation, whatever fails between the commit and the queue: a
 * forwarder that is down, a queue that refuses, a forwarder that dies after sending; its
 * event_id is the receipt's queue_message_id every time.
 */
import { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, TrimmedDataAccessException } from '@aws-sdk/client-dynamodb-streams';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MemoryQueue } from '../../lambdas/adapters/local/memory-queue.js';
import type { EventMessage } from '../../lambdas/domain/events.js';
import { workerList } from '../../lambdas/workers/worker-table.js';
import { localDynamoClient } from '../../local/dynamodb-local.js';
import { memoryStreamPositions, startStreamPoller } from '../../local/stream-poller.js';
import { recordQueue } from '../support/ledger-inspect.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import type { Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const positions = memoryStreamPositions();
const stack = useLedgerStack({ positions });
let orgId: string;
let api: Api;
let log: ReturnType<typeof recordQueue>;

beforeAll(async () => {
  ({ orgId, api: { org_owner: api } } = await stack.org('org_owner'));
});
afterEach(() => {
  log?.restore();
  vi.restoreAllMocks();
});

async function chain(): Promise<ClientChain> {
  const agentId = uniqueAgentId('outbox');
  const key = newKey();
  await registerAgent(api, agentId, [key]);
  return new ClientChain(orgId, agentId, key);
}

/** The operation.accepted messages sent for `operationId`. */
function acceptedFor(operationId: string): EventMessage[] {
  return log.events().map((entry) => entry.body).filter((body) => body.event === 'operation.accepted' && body.data.operation_id === operationId);
}

/** A forwarder on the same table and positions, as the event source is after a restart. */
async function restartedForwarder() {
  const dynamo = localDynamoClient(stack.dynamoEndpoint);
  const poller = await startStreamPoller({ dynamo, endpoint: stack.dynamoEndpoint, tableName: stack.tableName, workers: workerList, positions });
  return {
    poller,
    async stop() {
      await poller.stop();
      dynamo.destroy();
    },
  };
}

describe('the outbox', () => {
  it('sends one operation.accepted per accepted submission, event_id = queue_message_id; a refused submission sends none', async () => {
    log = recordQueue(stack.queue);
    const client = await chain();
    const receipts = [];
    for (let i = 0; i < 3; i++) receipts.push((await client.submit(api)).res.body.receipt);
    const stale = client.record({ fields: { prev_chain_hash: receipts[0].chain_hash } });
    expect((await api('POST', '/v1/operations', stale)).body.error.code).toBe('PREV_HASH_MISMATCH');
    await stack.stream.drain();
    for (const receipt of receipts) {
      expect(acceptedFor(receipt.operation_id)).toEqual([
        {
          event: 'operation.accepted',
          event_id: receipt.queue_message_id,
          org_id: orgId,
          timestamp: receipt.server_received_at,
          data: { operation_id: receipt.operation_id, agent_id: client.agentId },
        },
      ]);
    }
    expect(acceptedFor(stale.operation_id)).toEqual([]);
  });

  it('a crash between the commit and the forward: the event goes out when the forwarder is back, exactly once', async () => {
    log = recordQueue(stack.queue);
    const client = await chain();
    await stack.stream.drain();
    // The forwarder dies: commits go on, nothing is forwarded.
    await stack.stream.stop();
    const { res } = await client.submit(api);
    expect(res.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(acceptedFor(res.body.receipt.operation_id)).toEqual([]);

    // It comes back from its stream position: the committed event goes out, once.
    const first = await restartedForwarder();
    await first.poller.drain();
    await first.stop();
    expect(acceptedFor(res.body.receipt.operation_id).map((event) => event.event_id)).toEqual([res.body.receipt.queue_message_id]);
    // And a later restart does not send it again.
    const second = await restartedForwarder();
    await second.poller.drain();
    await second.stop();
    expect(acceptedFor(res.body.receipt.operation_id)).toHaveLength(1);
  });
});

/** Runs `test` with a forwarder restarted from the shared positions and the queue recorded; stops it after. */
async function withForwarder(test: (forwarder: Awaited<ReturnType<typeof restartedForwarder>>, client: ClientChain) => Promise<void>) {
  log = recordQueue(stack.queue);
  const forwarder = await restartedForwarder();
  try {
    await test(forwarder, await chain());
  } finally {
    await forwarder.stop();
  }
}

describe('forwarding failures (a forwarder restarted from the shared positions)', () => {
  it('a queue outage: the batch is retried from the first unsent record, and each event goes out once', () =>
    withForwarder(async (forwarder, client) => {
      const original = stack.queue.sendBatch.bind(stack.queue) as MemoryQueue['sendBatch'];
      vi.spyOn(stack.queue, 'sendBatch')
        .mockRejectedValueOnce(new Error('injected SQS outage'))
        .mockRejectedValueOnce(new Error('injected SQS outage'))
        .mockImplementation(original);
      const receipts = [(await client.submit(api)).res.body.receipt, (await client.submit(api)).res.body.receipt];
      await forwarder.poller.drain();
      for (const receipt of receipts) expect(acceptedFor(receipt.operation_id).map((event) => event.event_id)).toEqual([receipt.queue_message_id]);
      expect(forwarder.poller.givenUp).toEqual([]);
    }));

  it('a forwarder that dies after sending, before its stream position: the message goes out again with the same event_id', () =>
    withForwarder(async (forwarder, client) => {
      const original = stack.queue.sendBatch.bind(stack.queue) as MemoryQueue['sendBatch'];
      let died = false;
      vi.spyOn(stack.queue, 'sendBatch').mockImplementation(async (name, messages) => {
        const failed = await original(name, messages);
        if (!died) {
          died = true;
          throw new Error('injected crash after the send');
        }
        return failed;
      });
      const { res } = await client.submit(api);
      await forwarder.poller.drain();
      const events = acceptedFor(res.body.receipt.operation_id);
      expect(events.length).toBeGreaterThanOrEqual(2);
      // At least once on the queue, exactly one event: the webhook worker keys deliveries on event_id.
      expect(new Set(events.map((event) => event.event_id))).toEqual(new Set([res.body.receipt.queue_message_id]));
    }));

  it('an iterator DynamoDB Local calls trimmed: the shard is read again from its stream position, and each event goes out once', () =>
    withForwarder(async (forwarder, client) => {
      // DynamoDB Local now and then answers GetRecords on a fresh shard with TrimmedDataAccessException
      // (aws/aws-sdk-java#2923), and goes on answering so for that iterator; a new iterator reads on.
      const send = DynamoDBStreamsClient.prototype.send as (this: DynamoDBStreamsClient, command: unknown) => Promise<unknown>;
      let trimmed: string | undefined;
      let reissued = false;
      let refusals = 0;
      vi.spyOn(DynamoDBStreamsClient.prototype, 'send').mockImplementation(function (this: DynamoDBStreamsClient, command: unknown) {
        if (command instanceof GetShardIteratorCommand && trimmed !== undefined) reissued = true;
        if (command instanceof GetRecordsCommand && !reissued && (trimmed ??= command.input.ShardIterator) === command.input.ShardIterator) {
          refusals += 1;
          return Promise.reject(new TrimmedDataAccessException({ message: 'The operation attempted to read past the oldest stream record in a shard.', $metadata: {} }));
        }
        return send.call(this, command);
      } as never);
      const receipts = [(await client.submit(api)).res.body.receipt, (await client.submit(api)).res.body.receipt];
      await forwarder.poller.drain();
      expect(refusals).toBeGreaterThan(0);
      expect(reissued).toBe(true);
      for (const receipt of receipts) expect(acceptedFor(receipt.operation_id).map((event) => event.event_id)).toEqual([receipt.queue_message_id]);
      expect(forwarder.poller.givenUp).toEqual([]);
    }));
});
