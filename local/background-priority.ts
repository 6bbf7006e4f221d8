/**
 * On one machine the API and the background workers (webhook deliveries and fan-out, exports,
 * sealing) share one Node process and one DynamoDB Local; in AWS each is a Lambda of its own.
 * Without a rule, a burst of deliveries (the worker table lets up to 200 delivery batches run at
 * once) puts hundreds of table calls ahead of a submission's two, and submissions slow down
 * tenfold. So the table and object store calls made by background work go through a gate:
 *
 * - at most BACKGROUND_CALLS of them in flight at once (bounded concurrency);
 * - a background call starts only while no API request is in flight (priority), or once it
 *   has waited MAX_WAIT_MS, so background work is slowed under load, never starved.
 *
 * Only the table and object store calls wait: a delivery waiting on a slow webhook endpoint
 * holds no slot, so a hanging receiver cannot stall the others (docs/WEBHOOKS.md).
 * What is background is decided by where the call starts: inside `inBackground(...)`
 * (local/workers.ts and local/schedule.ts run every worker invocation in it).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Background table and object store calls in flight at once: one per core of a small machine.
 * On 2 cores at 150 webhook deliveries a second (`npm run bench`, webhooks, warmed up), 4 slots
 * held submissions at 3.6-3.7x their latency without webhooks, 2 slots at 1.7-1.9x, and the
 * deliveries kept the same pace: DynamoDB Local serves the same calls no faster when more of
 * them run at once; they only wait inside it, beside the API's.
 */
const BACKGROUND_CALLS = 2;
/** The longest a background call yields to API requests before it runs anyway. */
const MAX_WAIT_MS = 50;

const background = new AsyncLocalStorage<true>();

/** Runs `work` as background work: its table and object store calls yield to the API. */
export function inBackground<T>(work: () => Promise<T>): Promise<T> {
  return background.run(true, work);
}

/** `fn` on the first call only: a slot released twice would corrupt the counts. */
function firstCallOnly(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}

export class PriorityGate {
  private apiInFlight = 0;
  private running = 0;
  private readonly waiting: { admit: () => void; since: number }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limit: number,
    private readonly maxWaitMs: number,
  ) {}

  /** Counts an API request in flight until the returned function is called (once). */
  apiRequest(): () => void {
    this.apiInFlight += 1;
    return firstCallOnly(() => {
      this.apiInFlight -= 1;
      this.pump();
    });
  }

  /** Waits for a background slot; call the returned function when the call is done. */
  async admit(): Promise<() => void> {
    await new Promise<void>((admit) => {
      this.waiting.push({ admit, since: performance.now() });
      this.pump();
    });
    return firstCallOnly(() => {
      this.running -= 1;
      this.pump();
    });
  }

  /** What is waiting and running now (tests). */
  state(): { apiInFlight: number; running: number; waiting: number } {
    return { apiInFlight: this.apiInFlight, running: this.running, waiting: this.waiting.length };
  }

  private pump(): void {
    while (this.running < this.limit && this.waiting.length > 0) {
      const oldest = this.waiting[0]!;
      if (this.apiInFlight > 0 && performance.now() - oldest.since < this.maxWaitMs) break;
      this.waiting.shift();
      this.running += 1;
      oldest.admit();
    }
    // Held back by the API: wake when the oldest waiter has waited long enough.
    if (this.waiting.length > 0 && this.running < this.limit && this.timer === undefined) {
      const due = Math.max(1, this.maxWaitMs - (performance.now() - this.waiting[0]!.since));
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, due);
      this.timer.unref();
    }
  }
}

/** The one gate of the process: the local HTTP server and the SDK clients share it. */
export const backgroundGate = new PriorityGate(BACKGROUND_CALLS, MAX_WAIT_MS);

interface WithMiddleware {
  middlewareStack: {
    add(middleware: (next: (args: unknown) => Promise<unknown>) => (args: unknown) => Promise<unknown>, options: { step: 'initialize'; name: string }): void;
  };
}

const prioritized = new WeakSet<object>();

/** Makes `client`'s calls from background work wait for the gate (once per client). */
export function yieldToApi(client: WithMiddleware, gate: PriorityGate = backgroundGate): void {
  if (prioritized.has(client)) return;
  prioritized.add(client);
  client.middlewareStack.add(
    (next) => async (args) => {
      if (background.getStore() !== true) return next(args);
      const release = await gate.admit();
      try {
        return await next(args);
      } finally {
        release();
      }
    },
    { step: 'initialize', name: 'localBackgroundYieldsToApi' },
  );
}
