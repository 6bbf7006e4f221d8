/**
 * The local stand-ins for the SQS event source mapping (local/workers.ts) and the EventBridge
 * schedule (local/schedule.ts), with fake worker handlers in place of lambdas/workers/ modules.
 */
import type { Context, ScheduledEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryQueue } from '../../lambdas/adapters/local/memory-queue.js';
import type { WorkerSpec } from '../../lambdas/workers/worker-spec.js';
import { startSchedule, type Schedule } from '../../local/schedule.js';
import { startQueueWorkers } from '../../local/workers.js';

const fakeHandlers = new Map<string, (event: never, context: Context) => Promise<unknown>>();
vi.mock('../../local/handler-modules.js', () => ({
  loadHandler: async (_kind: string, name: string) => {
    const handler = fakeHandlers.get(name);
    if (!handler) throw new Error(`no fake handler ${name}`);
    return handler;
  },
}));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  fakeHandlers.clear();
});

function queueWorker(handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>): WorkerSpec {
  fakeHandlers.set('fake-events-worker', handler as never);
  return {
    id: 'FakeEventsWorker',
    handler: 'fake-events-worker',
    trigger: { kind: 'queue', queue: 'events', batchSize: 10 },
    uses: [],
    timeoutSeconds: 5,
  };
}

describe('queue workers', () => {
  it('hand batches to the worker as SQS events', async () => {
    const queue = new MemoryQueue();
    const events: SQSEvent[] = [];
    const contexts: Context[] = [];
    const stop = startQueueWorkers(queue, [
      queueWorker(async (event, context) => {
        events.push(event);
        contexts.push(context);
      }),
    ]);
    cleanups.push(stop, () => queue.close());
    const id1 = await queue.send('events', { body: { n: 1 } });
    const id2 = await queue.send('events', { body: { n: 2 } });
    await queue.drain();
    expect(events).toHaveLength(1);
    const records = events[0]!.Records;
    expect(records.map((r) => r.messageId)).toEqual([id1, id2]);
    expect(records[0]).toMatchObject({
      body: '{"n":1}',
      eventSource: 'aws:sqs',
      awsRegion: expect.any(String),
      md5OfBody: createHash('md5').update('{"n":1}').digest('hex'),
      messageAttributes: {},
      attributes: { ApproximateReceiveCount: '1', SenderId: expect.any(String) },
    });
    expect(records[0]!.eventSourceARN).toMatch(/^arn:aws:sqs:[\w-]+:\d{12}:ledger-events$/);
    expect(Number(records[0]!.attributes.SentTimestamp)).toBeLessThanOrEqual(Date.now());
    expect(contexts[0]!.functionName).toBe('FakeEventsWorker');
    expect(contexts[0]!.getRemainingTimeInMillis()).toBeLessThanOrEqual(5_000);
  });

  it('retries exactly the batchItemFailures, then dead-letters what keeps failing', async () => {
    const queue = new MemoryQueue();
    const seen: [string, string][] = [];
    const stop = startQueueWorkers(
      queue,
      [
        queueWorker(async (event) => {
          for (const record of event.Records) seen.push([record.body, record.attributes.ApproximateReceiveCount]);
          return {
            batchItemFailures: event.Records.filter((r) => r.body === '"poison"').map((r) => ({ itemIdentifier: r.messageId })),
          };
        }),
      ],
      { visibilityTimeoutMs: 10, maxReceiveCount: 3 },
    );
    cleanups.push(stop, () => queue.close());
    await queue.send('events', { body: 'fine' });
    const poison = await queue.send('events', { body: 'poison' });
    await queue.drain();
    expect(seen).toEqual([
      ['"fine"', '1'],
      ['"poison"', '1'],
      ['"poison"', '2'],
      ['"poison"', '3'],
    ]);
    expect(queue.deadLetters('events').map((d) => d.messageId)).toEqual([poison]);
  });

  it('retries the whole batch when the worker throws, and logs why', async () => {
    const queue = new MemoryQueue();
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    cleanups.push(() => stderr.mockRestore());
    let calls = 0;
    const stop = startQueueWorkers(
      queue,
      [
        queueWorker(async () => {
          if (++calls === 1) throw new Error('worker bug');
        }),
      ],
      { visibilityTimeoutMs: 10 },
    );
    cleanups.push(stop, () => queue.close());
    await queue.send('events', { body: 1 });
    await queue.drain();
    expect(calls).toBe(2);
    expect(stderr).toHaveBeenCalledWith(expect.stringContaining('worker bug'));
  });

  it('ignore schedule workers', () => {
    const queue = new MemoryQueue();
    const stop = startQueueWorkers(queue, [
      { id: 'Sealer', handler: 'sealer', trigger: { kind: 'schedule' }, uses: [], timeoutSeconds: 5 },
    ]);
    stop();
    expect(queue.stats('events').running).toBe(0);
  });
});

describe('schedule', () => {
  function scheduledWorker(id: string, handler: (event: ScheduledEvent) => Promise<void>): WorkerSpec {
    fakeHandlers.set(id, handler as never);
    return { id, handler: id, trigger: { kind: 'schedule' }, uses: [], timeoutSeconds: 5 };
  }

  function track(schedule: Schedule): Schedule {
    cleanups.push(() => schedule.stop());
    return schedule;
  }

  it('works with no scheduled worker', async () => {
    const schedule = track(startSchedule([], 5));
    await schedule.runNow();
    await schedule.stop();
  });

  it('calls each scheduled worker with a Scheduled Event every interval', async () => {
    const events: ScheduledEvent[] = [];
    track(startSchedule([scheduledWorker('sealer', async (event) => void events.push(event))], 20));
    await sleep(110);
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events[0]).toMatchObject({ source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} });
    expect(events[0]!.resources[0]).toMatch(/rule\/ledger-sealer$/);
  });

  it('never overlaps runs, even when a run outlasts the interval', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const schedule = track(
      startSchedule(
        [
          scheduledWorker('slow', async () => {
            most = Math.max(most, ++running);
            runs++;
            await sleep(30);
            running--;
          }),
        ],
        5,
      ),
    );
    await Promise.all([sleep(120), schedule.runNow(), schedule.runNow()]);
    await schedule.stop();
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(most).toBe(1);
  });

  it('keeps ticking after a failed run', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    cleanups.push(() => stderr.mockRestore());
    let runs = 0;
    track(
      startSchedule(
        [
          scheduledWorker('flaky', async () => {
            runs++;
            throw new Error('seal failed');
          }),
        ],
        10,
      ),
    );
    await sleep(80);
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(stderr).toHaveBeenCalledWith(expect.stringContaining('seal failed'));
  });

  it('stop waits for the run in progress and ends the ticks', async () => {
    let finished = 0;
    const schedule = track(
      startSchedule(
        [
          scheduledWorker('sealer', async () => {
            await sleep(40);
            finished++;
          }),
        ],
        5,
      ),
    );
    await sleep(15); // first run under way
    await schedule.stop();
    const after = finished;
    expect(after).toBeGreaterThanOrEqual(1);
    await sleep(60);
    expect(finished).toBe(after);
  });
});
