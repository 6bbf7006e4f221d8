/**
 * The in-process queue keeps the SQS semantics the workers rely on (docs/ARCHITECTURE.md, Local stack):
 * batching, partial batch failure, retries after the visibility timeout, dead letters.
 * Timeouts are a few tens of milliseconds so the whole file runs in well under a second.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  MemoryQueue,
  memoryQueue,
  type DeliveredMessage,
} from '../../lambdas/adapters/local/memory-queue.js';
import type * as MemoryQueueModule from '../../lambdas/adapters/local/memory-queue.js';

const queues: MemoryQueue[] = [];
function newQueue(): MemoryQueue {
  const queue = new MemoryQueue();
  queues.push(queue);
  return queue;
}
afterEach(() => {
  for (const queue of queues.splice(0)) queue.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('MemoryQueue', () => {
  it('returns a UUID message id and delivers the JSON body', async () => {
    const queue = newQueue();
    const seen: DeliveredMessage[] = [];
    queue.consume('events', async (batch) => void seen.push(...batch), { batchSize: 10, visibilityTimeoutMs: 1000 });
    const id = await queue.send('events', { body: { type: 'operation.accepted', n: 1 } });
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await queue.drain();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ messageId: id, body: '{"type":"operation.accepted","n":1}', receiveCount: 1 });
    expect(seen[0]!.sentAt).toBeLessThanOrEqual(seen[0]!.firstReceivedAt);
  });

  it('rejects a body that JSON cannot represent', async () => {
    await expect(newQueue().send('events', { body: undefined })).rejects.toThrow(/JSON/);
  });

  it('keeps messages until a consumer registers', async () => {
    const queue = newQueue();
    await queue.send('exports', { body: 1 });
    await queue.idle();
    expect(queue.stats('exports')).toMatchObject({ stored: 1, visible: 1 });
    const seen: string[] = [];
    queue.consume('exports', async (batch) => void seen.push(...batch.map((m) => m.body)), {
      batchSize: 1,
      visibilityTimeoutMs: 1000,
    });
    await queue.drain();
    expect(seen).toEqual(['1']);
  });

  it('delivers a burst in batches of at most batchSize, oldest first', async () => {
    const queue = newQueue();
    const batches: string[][] = [];
    queue.consume('events', async (batch) => void batches.push(batch.map((m) => m.body)), {
      batchSize: 3,
      visibilityTimeoutMs: 1000,
    });
    await Promise.all(Array.from({ length: 7 }, (_, i) => queue.send('events', { body: i })));
    await queue.drain();
    expect(batches).toEqual([['0', '1', '2'], ['3', '4', '5'], ['6']]);
  });

  it('drains a backlog of 200,000 messages oldest first, each pump costing its batch rather than the backlog', async () => {
    // Scanning every stored message on each pump took n²/batchSize steps: minutes for this
    // backlog (what seeding a day of operations leaves on the events queue), past the test's timeout.
    const queue = newQueue();
    const n = 200_000;
    for (let i = 0; i < n; i++) await queue.send('events', { body: i });
    let next = 0;
    let outOfOrder = 0;
    queue.consume(
      'events',
      async (batch) => {
        for (const message of batch) if (Number(message.body) !== next++) outOfOrder++;
      },
      { batchSize: 10, visibilityTimeoutMs: 60_000, concurrency: 2 },
    );
    await queue.drain({ timeoutMs: 25_000 });
    expect({ delivered: next, outOfOrder }).toEqual({ delivered: n, outOfOrder: 0 });
  });

  it('runs one batch at a time by default and more with concurrency', async () => {
    for (const concurrency of [1, 3]) {
      const queue = newQueue();
      let running = 0;
      let most = 0;
      queue.consume(
        'events',
        async () => {
          most = Math.max(most, ++running);
          await sleep(10);
          running--;
        },
        { batchSize: 1, visibilityTimeoutMs: 1000, concurrency },
      );
      for (let i = 0; i < 6; i++) await queue.send('events', { body: i });
      await queue.drain();
      expect(most).toBe(concurrency);
    }
  });

  it('redelivers only the failed ids of a partial batch response, after the visibility timeout', async () => {
    const queue = newQueue();
    const deliveries: { body: string; receiveCount: number; at: number }[] = [];
    let first = true;
    queue.consume(
      'events',
      async (batch) => {
        deliveries.push(...batch.map((m) => ({ body: m.body, receiveCount: m.receiveCount, at: Date.now() })));
        if (!first) return;
        first = false;
        return { failedMessageIds: batch.filter((m) => m.body === '"b"').map((m) => m.messageId) };
      },
      { batchSize: 10, visibilityTimeoutMs: 60 },
    );
    await queue.send('events', { body: 'a' });
    await queue.send('events', { body: 'b' });
    await queue.send('events', { body: 'c' });
    await queue.idle();
    // Between the failure and the end of the visibility timeout the message is hidden, not gone.
    expect(queue.stats('events')).toMatchObject({ stored: 1, visible: 0, running: 0 });
    await queue.drain();
    expect(deliveries.map((d) => [d.body, d.receiveCount])).toEqual([
      ['"a"', 1],
      ['"b"', 1],
      ['"c"', 1],
      ['"b"', 2],
    ]);
    expect(deliveries[3]!.at - deliveries[0]!.at).toBeGreaterThanOrEqual(55);
  });

  it('fails the whole batch when the consumer throws', async () => {
    const queue = newQueue();
    const counts: number[][] = [];
    queue.consume(
      'events',
      async (batch) => {
        counts.push(batch.map((m) => m.receiveCount));
        if (counts.length === 1) throw new Error('boom');
      },
      { batchSize: 10, visibilityTimeoutMs: 20 },
    );
    await queue.send('events', { body: 1 });
    await queue.send('events', { body: 2 });
    await queue.drain();
    expect(counts).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it('fails the whole batch when a partial response names an id it was not given', async () => {
    const queue = newQueue();
    let calls = 0;
    queue.consume(
      'events',
      async () => (++calls === 1 ? { failedMessageIds: ['not-a-message-of-this-batch'] } : undefined),
      { batchSize: 10, visibilityTimeoutMs: 20 },
    );
    await queue.send('events', { body: 1 });
    await queue.drain();
    expect(calls).toBe(2);
  });

  it('treats a batch that outlives the handler timeout as failed and redelivers it', async () => {
    const queue = newQueue();
    const counts: number[] = [];
    queue.consume(
      'events',
      async (batch) => {
        counts.push(batch[0]!.receiveCount);
        if (counts.length === 1) await sleep(200); // "hangs" past the 30 ms timeout
      },
      { batchSize: 1, visibilityTimeoutMs: 50, handlerTimeoutMs: 30 },
    );
    await queue.send('events', { body: 1 });
    await queue.drain();
    expect(counts).toEqual([1, 2]);
  });

  it('hides a message in flight: a slow batch is not delivered twice within the visibility timeout', async () => {
    const queue = newQueue();
    let deliveries = 0;
    queue.consume(
      'events',
      async () => {
        deliveries++;
        await sleep(50);
      },
      { batchSize: 1, visibilityTimeoutMs: 1000, concurrency: 5 },
    );
    await queue.send('events', { body: 1 });
    await sleep(20);
    await queue.send('events', { body: 2 }); // wakes the pump while message 1 is in flight
    await queue.drain();
    expect(deliveries).toBe(2);
  });

  it('moves a message to the dead-letter list after maxReceiveCount receives', async () => {
    const queue = newQueue();
    const counts: number[] = [];
    queue.consume(
      'events',
      async (batch) => {
        counts.push(batch[0]!.receiveCount);
        throw new Error('always fails');
      },
      { batchSize: 1, visibilityTimeoutMs: 5, maxReceiveCount: 3 },
    );
    const id = await queue.send('events', { body: { poison: true } });
    await queue.drain();
    expect(counts).toEqual([1, 2, 3]);
    expect(queue.deadLetters('events')).toEqual([
      expect.objectContaining({ messageId: id, body: '{"poison":true}', receiveCount: 3 }),
    ]);
    expect(queue.deadLetters('exports')).toEqual([]);
  });

  it('uses maxReceiveCount 5 by default', async () => {
    const queue = newQueue();
    let calls = 0;
    queue.consume(
      'events',
      async () => {
        calls++;
        throw new Error('always fails');
      },
      { batchSize: 1, visibilityTimeoutMs: 1 },
    );
    await queue.send('events', { body: 1 });
    await queue.drain();
    expect(calls).toBe(5);
    expect(queue.deadLetters('events')).toHaveLength(1);
  });

  it('drain rejects with what is left when a queue has no consumer', async () => {
    const queue = newQueue();
    await queue.send('exports', { body: 1 });
    await expect(queue.drain({ timeoutMs: 30 })).rejects.toThrow(/exports: 1 stored/);
  });

  it('close stops delivery; messages stay and a new consumer picks them up', async () => {
    const queue = newQueue();
    const seen: string[] = [];
    const options = { batchSize: 10, visibilityTimeoutMs: 1000 };
    queue.consume('events', async (batch) => void seen.push(...batch.map((m) => m.body)), options);
    queue.close();
    await queue.send('events', { body: 'kept' });
    await sleep(10);
    expect(seen).toEqual([]);
    queue.consume('events', async (batch) => void seen.push(...batch.map((m) => m.body)), options);
    await queue.drain();
    expect(seen).toEqual(['"kept"']);
  });

  it('allows one consumer per queue, and unregistering frees the slot', () => {
    const queue = newQueue();
    const options = { batchSize: 1, visibilityTimeoutMs: 10 };
    const stop = queue.consume('events', async () => {}, options);
    expect(() => queue.consume('events', async () => {}, options)).toThrow(/already has a consumer/);
    stop();
    expect(() => queue.consume('events', async () => {}, options)).not.toThrow();
  });

  it('delaySeconds hides a message until the clock, advanced by a test, reaches it (SQS DelaySeconds)', async () => {
    const queue = newQueue();
    const seen: string[] = [];
    queue.consume('deliveries', async (batch) => void seen.push(...batch.map((m) => m.body)), { batchSize: 10, visibilityTimeoutMs: 1000 });
    await queue.send('deliveries', { body: 'later', delaySeconds: 900 });
    await queue.send('deliveries', { body: 'now' });
    await queue.idle();
    expect(seen).toEqual(['"now"']);
    expect(queue.stats('deliveries')).toMatchObject({ stored: 1, visible: 0 });
    queue.advance(899_000);
    await queue.idle();
    expect(seen).toEqual(['"now"']);
    const before = queue.now();
    queue.advance(1_000);
    expect(queue.now()).toBeGreaterThanOrEqual(before + 1_000);
    await queue.drain();
    expect(seen).toEqual(['"now"', '"later"']);
    await expect(queue.send('deliveries', { body: 1, delaySeconds: 901 })).rejects.toThrow(RangeError);
    await expect(queue.send('deliveries', { body: 1, delaySeconds: 1.5 })).rejects.toThrow(RangeError);
  });

  it('sendToDeadLetters puts a message straight on the dead-letter list; purge resets the clock', async () => {
    const queue = newQueue();
    await queue.sendToDeadLetters('deliveries', { body: { delivery_id: 'd1' } });
    expect(queue.deadLetters('deliveries')).toEqual([expect.objectContaining({ body: '{"delivery_id":"d1"}', receiveCount: 0 })]);
    expect(queue.stats('deliveries')).toMatchObject({ stored: 0, deadLetters: 1 });
    queue.advance(3_600_000);
    queue.purge();
    expect(Math.abs(queue.now() - Date.now())).toBeLessThan(1_000);
    expect(queue.deadLetters('deliveries')).toEqual([]);
  });

  it('ping resolves', async () => {
    await expect(newQueue().ping()).resolves.toBeUndefined();
  });
});

describe('memoryQueue()', () => {
  it('is one instance per process, even when the module is loaded twice', async () => {
    // A query string makes the module runner load a second copy of the module.
    const copy = (await import(
      // @ts-expect-error -- a query suffix has no declaration; it only exists to load a fresh copy
      '../../lambdas/adapters/local/memory-queue.ts?second-copy'
    )) as typeof MemoryQueueModule;
    expect(copy.MemoryQueue).not.toBe(MemoryQueue);
    expect(copy.memoryQueue()).toBe(memoryQueue());
  });

  it('with a fairness key, keys take turns: a backlog of one key does not hold up another', async () => {
    const queue = newQueue();
    const order: string[] = [];
    for (let n = 0; n < 6; n++) await queue.send('exports', { body: { org_id: 'busy', n } });
    await queue.send('exports', { body: { org_id: 'patient', n: 0 } });
    queue.consume('exports', async (batch) => void order.push(...batch.map((m) => (JSON.parse(m.body) as { org_id: string }).org_id)), {
      batchSize: 1,
      visibilityTimeoutMs: 1000,
      fairnessKey: (body) => (JSON.parse(body) as { org_id: string }).org_id,
    });
    await queue.drain();
    expect(order).toEqual(['busy', 'patient', 'busy', 'busy', 'busy', 'busy', 'busy']);
  });
});
