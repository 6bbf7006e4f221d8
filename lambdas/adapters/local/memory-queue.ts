/**
 * The in-process queue that stands in for SQS on one machine (docs/ARCHITECTURE.md, Local stack: "SQS |
 * in-process queue with SQS semantics: batches, visibility timeout, retries, dead letters").
 *
 * Semantics copied from SQS + the Lambda event source mapping, so a worker that behaves
 * locally behaves in AWS:
 * - `send` stores the JSON-serialized body (as SqsQueue does) and returns a UUID message id;
 *   `delaySeconds` hides a new message that long (SQS DelaySeconds, at most 15 minutes);
 * - a registered consumer receives batches of up to `batchSize` visible messages; each
 *   delivery increments the message's receive count and hides the message for the visibility
 *   timeout;
 * - a batch that resolves is deleted, except the ids it lists in `failedMessageIds` (the
 *   partial batch response, ReportBatchItemFailures); a batch that throws or outlives its
 *   handler timeout fails as a whole. Failed messages reappear when their visibility timeout
 *   ends, as in SQS (they are not redelivered at once);
 * - a message that has been received `maxReceiveCount` times and becomes visible again moves
 *   to the queue's dead-letter list instead of being delivered (the SQS redrive policy).
 *
 * - `sendToDeadLetters` puts a message straight on the dead-letter list (what SqsQueue does by
 *   sending to the dead-letter queue).
 *
 * Time is the wall clock plus an offset that `advance(ms)` moves forward, so a test can let
 * delays and visibility timeouts of minutes or hours run out at once instead of waiting
 * (webhook retries: docs/WEBHOOKS.md).
 *
 * One instance per process, kept on globalThis: the handlers (through lambdas/runtime/)
 * and the local runner (local/) must share it even when this module is loaded twice under
 * different URLs (tsx, vitest and plain Node resolve paths independently).
 */
import { randomUUID } from 'node:crypto';
import { MAX_DELAY_SECONDS, type BatchResult, type Queue, type QueueMessage, type QueueName, type ReceivedMessage } from '../../domain/ports.js';

/** A delivered message with the timestamps an SQS record carries (attributes.SentTimestamp, ...). */
export interface DeliveredMessage extends ReceivedMessage {
  /** Epoch milliseconds when it was sent. */
  sentAt: number;
  /** Epoch milliseconds of its first delivery. */
  firstReceivedAt: number;
}

/** A worker's view of a batch; returning nothing means every message succeeded. */
export type BatchConsumer = (messages: DeliveredMessage[]) => Promise<BatchResult | void>;

export interface ConsumerOptions {
  /** Most messages per batch (the event source mapping's BatchSize). */
  batchSize: number;
  /** How long a delivered message stays hidden (SQS VisibilityTimeout). */
  visibilityTimeoutMs: number;
  /** A batch still running after this long counts as failed (the Lambda timeout); default: the visibility timeout. */
  handlerTimeoutMs?: number;
  /** Deliveries before a message moves to the dead-letter list (redrive policy); default 5. */
  maxReceiveCount?: number;
  /** Batches processed at once (the mapping's maximum concurrency); default 1. */
  concurrency?: number;
  /**
   * When given, visible messages are handed out in turns by this key of their body (e.g. the
   * organization): the oldest of each key in rotation, instead of strictly oldest first.
   */
  fairnessKey?: (body: string) => string | undefined;
}

export interface DeadLetter {
  messageId: string;
  body: string;
  receiveCount: number;
  sentAt: number;
  /** Epoch milliseconds when it was moved. */
  movedAt: number;
}

interface StoredMessage {
  messageId: string;
  body: string;
  sentAt: number;
  receiveCount: number;
  firstReceivedAt: number | undefined;
  /** Epoch milliseconds from which it may be delivered. */
  visibleAt: number;
}

interface ConsumerState {
  consume: BatchConsumer;
  batchSize: number;
  visibilityTimeoutMs: number;
  handlerTimeoutMs: number;
  maxReceiveCount: number;
  concurrency: number;
  fairnessKey: ((body: string) => string | undefined) | undefined;
  /** With a fairness key: when each key was last handed out (a counter), so turns rotate across pumps. */
  lastServed: Map<string | undefined, number>;
  served: number;
}

interface QueueState {
  messages: Map<string, StoredMessage>;
  deadLetters: DeadLetter[];
  consumer: ConsumerState | undefined;
  /** Batches handed to the consumer and not yet settled. */
  running: number;
  timer: NodeJS.Timeout | undefined;
  pumpScheduled: boolean;
}

export interface QueueStats {
  /** Messages stored: visible, in flight or waiting out a visibility timeout. */
  stored: number;
  /** Of those, deliverable now. */
  visible: number;
  /** Batches being processed. */
  running: number;
  deadLetters: number;
}

interface Waiter {
  done: () => boolean;
  resolve: () => void;
}

const DEFAULT_MAX_RECEIVE_COUNT = 5;
const DEFAULT_WAIT_TIMEOUT_MS = 10_000;

export class MemoryQueue implements Queue {
  private readonly queues = new Map<string, QueueState>();
  private waiters: Waiter[] = [];
  /** How far `advance` has moved this queue's clock ahead of the wall clock. */
  private offsetMs = 0;

  async send(queue: QueueName, message: QueueMessage): Promise<string> {
    const body = serialize(message);
    const delaySeconds = message.delaySeconds ?? 0;
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_DELAY_SECONDS) {
      throw new RangeError(`delaySeconds must be an integer from 0 to ${MAX_DELAY_SECONDS}, got ${delaySeconds}`);
    }
    const messageId = randomUUID();
    const now = this.now();
    this.state(queue).messages.set(messageId, {
      messageId,
      body,
      sentAt: now,
      receiveCount: 0,
      firstReceivedAt: undefined,
      visibleAt: now + delaySeconds * 1000,
    });
    this.schedulePump(queue);
    return messageId;
  }

  async sendBatch(queue: QueueName, messages: readonly QueueMessage[]): Promise<number[]> {
    for (const message of messages) await this.send(queue, message);
    return [];
  }

  async sendToDeadLetters(queue: QueueName, message: QueueMessage): Promise<void> {
    const body = serialize(message);
    const now = this.now();
    this.state(queue).deadLetters.push({ messageId: randomUUID(), body, receiveCount: 0, sentAt: now, movedAt: now });
    this.notify();
  }

  async ping(): Promise<void> {}

  /** The queue's clock: Unix ms, `advance`d ahead of the wall clock by tests. */
  now(): number {
    return Date.now() + this.offsetMs;
  }

  /**
   * Moves the queue's clock forward by `ms`: delays and visibility timeouts that end within
   * it end now, and their messages are delivered (tests of retry schedules).
   */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`advance takes a non-negative number of ms, got ${ms}`);
    this.offsetMs += ms;
    for (const name of this.queues.keys()) this.schedulePump(name);
  }

  /**
   * Registers the one consumer of `queue` (one event source mapping per queue) and starts
   * delivering. Returns a function that unregisters it; batches already running finish.
   */
  consume(queue: QueueName, consume: BatchConsumer, options: ConsumerOptions): () => void {
    if (!Number.isSafeInteger(options.batchSize) || options.batchSize < 1) {
      throw new RangeError(`batchSize must be a positive integer, got ${options.batchSize}`);
    }
    const state = this.state(queue);
    if (state.consumer) throw new Error(`queue "${queue}" already has a consumer`);
    const consumer: ConsumerState = {
      consume,
      batchSize: options.batchSize,
      visibilityTimeoutMs: options.visibilityTimeoutMs,
      handlerTimeoutMs: options.handlerTimeoutMs ?? options.visibilityTimeoutMs,
      maxReceiveCount: options.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT,
      concurrency: options.concurrency ?? 1,
      fairnessKey: options.fairnessKey,
      lastServed: new Map(),
      served: 0,
    };
    state.consumer = consumer;
    this.schedulePump(queue);
    return () => {
      if (state.consumer === consumer) {
        state.consumer = undefined;
        this.clearTimer(state);
        this.notify();
      }
    };
  }

  /** Messages moved to `queue`'s dead-letter list, oldest first. */
  deadLetters(queue: QueueName): readonly DeadLetter[] {
    return [...this.state(queue).deadLetters];
  }

  stats(queue: QueueName): QueueStats {
    const state = this.state(queue);
    const now = this.now();
    let visible = 0;
    for (const message of state.messages.values()) if (message.visibleAt <= now) visible++;
    return { stored: state.messages.size, visible, running: state.running, deadLetters: state.deadLetters.length };
  }

  /**
   * Resolves once every queue is empty and no batch is running: all messages were processed
   * or dead-lettered. Rejects after `timeoutMs` (default 10 s) naming what is left, so a test
   * whose worker keeps failing fails with a reason instead of hanging.
   */
  drain(options: { timeoutMs?: number } = {}): Promise<void> {
    return this.waitUntil('drain', () => this.all((s) => s.messages.size === 0 && s.running === 0), options.timeoutMs);
  }

  /**
   * Resolves once nothing can happen right now: no batch is running and no message is
   * deliverable to a registered consumer. Messages may remain, hidden by their visibility
   * timeout (awaiting a retry) or on a queue without a consumer. Tests use it to look at the
   * state between retries.
   */
  idle(options: { timeoutMs?: number } = {}): Promise<void> {
    return this.waitUntil('idle', () => {
      const now = this.now();
      return this.all(
        (s) => s.running === 0 && (!s.consumer || [...s.messages.values()].every((m) => m.visibleAt > now)),
      );
    }, options.timeoutMs);
  }

  /** Stops delivering: unregisters every consumer and clears timers. Messages stay; sending still works. */
  close(): void {
    for (const state of this.queues.values()) {
      state.consumer = undefined;
      this.clearTimer(state);
    }
    this.notify();
  }

  /** Forgets every message and dead letter and resets the clock (tests); consumers stay registered. */
  purge(): void {
    this.offsetMs = 0;
    for (const state of this.queues.values()) {
      state.messages.clear();
      state.deadLetters.length = 0;
      this.clearTimer(state);
    }
    this.notify();
  }

  private state(queue: string): QueueState {
    let state = this.queues.get(queue);
    if (!state) {
      state = { messages: new Map(), deadLetters: [], consumer: undefined, running: 0, timer: undefined, pumpScheduled: false };
      this.queues.set(queue, state);
    }
    return state;
  }

  private all(predicate: (state: QueueState) => boolean): boolean {
    return [...this.queues.values()].every(predicate);
  }

  /**
   * Pumps on the next turn of the event loop rather than inline, so messages sent in one
   * synchronous burst arrive as one batch, as SQS long polling would return them.
   */
  private schedulePump(queue: string): void {
    const state = this.state(queue);
    if (state.pumpScheduled) return;
    state.pumpScheduled = true;
    setImmediate(() => {
      state.pumpScheduled = false;
      this.pump(queue);
    });
  }

  private pump(queue: string): void {
    const state = this.state(queue);
    const consumer = state.consumer;
    if (!consumer) return;
    this.clearTimer(state);
    const now = this.now();
    const visible: StoredMessage[] = [];
    let nextVisibleAt = Infinity;
    // Without a fairness key the batches are the oldest visible messages, so the scan stops once
    // the free slots are filled: a pump costs what it hands out (and the hidden messages before
    // it), not the whole backlog, which made draining n messages take n²/batchSize steps. Taking
    // turns needs every visible message's key, so a fair consumer scans them all.
    const wanted = consumer.fairnessKey ? Infinity : (consumer.concurrency - state.running) * consumer.batchSize;
    let scannedAll = true;
    for (const message of state.messages.values()) {
      if (visible.length >= wanted) {
        scannedAll = false;
        break;
      }
      if (message.visibleAt > now) {
        nextVisibleAt = Math.min(nextVisibleAt, message.visibleAt);
      } else if (message.receiveCount >= consumer.maxReceiveCount) {
        // SQS redrive: the receive that would exceed maxReceiveCount moves the message instead.
        state.messages.delete(message.messageId);
        state.deadLetters.push({
          messageId: message.messageId,
          body: message.body,
          receiveCount: message.receiveCount,
          sentAt: message.sentAt,
          movedAt: now,
        });
      } else {
        visible.push(message);
      }
    }
    // Messages are kept in send order (Map insertion order), so batches are oldest first,
    // or, with a fairness key, each key's oldest in turn.
    if (consumer.fairnessKey) visible.splice(0, visible.length, ...takingTurns(visible, consumer));
    while (visible.length > 0 && state.running < consumer.concurrency) {
      const batch = visible.splice(0, consumer.batchSize);
      if (consumer.fairnessKey) for (const message of batch) consumer.lastServed.set(consumer.fairnessKey(message.body), ++consumer.served);
      for (const message of batch) {
        message.receiveCount += 1;
        message.firstReceivedAt ??= now;
        message.visibleAt = now + consumer.visibilityTimeoutMs;
      }
      state.running += 1;
      void this.deliver(queue, state, consumer, batch);
    }
    // Whatever is still visible (or not scanned) waits for a running batch to settle (deliver
    // pumps again); hidden messages wake the pump when their visibility timeout ends.
    if (scannedAll && visible.length === 0 && nextVisibleAt !== Infinity) {
      // Unref'd: a retry waiting in the queue must not keep a finished process alive.
      state.timer = setTimeout(() => this.pump(queue), Math.max(0, nextVisibleAt - now)).unref();
    }
    this.notify();
  }

  private async deliver(queue: string, state: QueueState, consumer: ConsumerState, batch: StoredMessage[]): Promise<void> {
    const delivered: DeliveredMessage[] = batch.map((message) => ({
      messageId: message.messageId,
      body: message.body,
      receiveCount: message.receiveCount,
      sentAt: message.sentAt,
      firstReceivedAt: message.firstReceivedAt ?? this.now(),
    }));
    let failed: Set<string>;
    try {
      const result = await withTimeout(consumer.consume(delivered), consumer.handlerTimeoutMs);
      failed = new Set(result?.failedMessageIds ?? []);
      // Lambda treats a partial batch response naming an id it did not deliver as a whole-batch failure.
      if ([...failed].some((id) => !batch.some((message) => message.messageId === id))) {
        failed = new Set(batch.map((message) => message.messageId));
      }
    } catch {
      failed = new Set(batch.map((message) => message.messageId));
    }
    for (const message of batch) {
      // A failed message keeps its visibility timeout and reappears when it ends.
      if (!failed.has(message.messageId)) state.messages.delete(message.messageId);
    }
    state.running -= 1;
    this.schedulePump(queue);
    this.notify();
  }

  private clearTimer(state: QueueState): void {
    if (state.timer) clearTimeout(state.timer);
    state.timer = undefined;
  }

  private waitUntil(what: string, done: () => boolean, timeoutMs = DEFAULT_WAIT_TIMEOUT_MS): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        done,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`memory queue: ${what} timed out after ${timeoutMs} ms; ${this.describe()}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /**
   * Re-checks waiters after every change. Visibility timeouts end without an event, so a
   * waiter also re-checks when a pump timer fires (pump calls notify).
   */
  private notify(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.done()) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }

  private describe(): string {
    return [...this.queues.keys()]
      .map((name) => {
        const s = this.stats(name as QueueName);
        return `${name}: ${s.stored} stored (${s.visible} visible), ${s.running} running, ${s.deadLetters} dead`;
      })
      .join('; ');
  }
}

/**
 * `messages` (oldest first) reordered so that keys take turns: the oldest message of each key,
 * the key served longest ago (or never) first, then the second of each, and so on. The
 * consumer remembers whom it served, so turns rotate across pumps too: a key with a long
 * backlog gets one batch, then every other key waiting gets one, before it gets the next.
 */
function takingTurns(messages: StoredMessage[], consumer: ConsumerState): StoredMessage[] {
  const keyOf = consumer.fairnessKey as (body: string) => string | undefined;
  const groups = new Map<string | undefined, StoredMessage[]>();
  for (const message of messages) {
    const key = keyOf(message.body);
    const group = groups.get(key);
    if (group) group.push(message);
    else groups.set(key, [message]);
  }
  // Stable sort: keys served equally long ago keep the order of their oldest message.
  const turns = [...groups.entries()].sort(([a], [b]) => (consumer.lastServed.get(a) ?? 0) - (consumer.lastServed.get(b) ?? 0)).map(([, group]) => group);
  const ordered: StoredMessage[] = [];
  for (let round = 0; ordered.length < messages.length; round++) {
    for (const group of turns) if (round < group.length) ordered.push(group[round] as StoredMessage);
  }
  return ordered;
}

function serialize(message: QueueMessage): string {
  const body = JSON.stringify(message.body);
  if (body === undefined) throw new TypeError('queue message body must be JSON-serializable');
  return body;
}

class HandlerTimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HandlerTimeoutError(`batch handler timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const GLOBAL_KEY = Symbol.for('agent-ledger.memory-queue');

/** The process-wide in-process queue, shared by handlers and the local runner. */
export function memoryQueue(): MemoryQueue {
  const holder = globalThis as { [GLOBAL_KEY]?: MemoryQueue };
  holder[GLOBAL_KEY] ??= new MemoryQueue();
  return holder[GLOBAL_KEY];
}
