// The local stack's priority gate (local/background-priority.ts): background table and object
// store calls are bounded in number, wait while API requests are in flight, and are never starved.
import { describe, expect, it } from 'vitest';
import { inBackground, PriorityGate, yieldToApi } from '../../local/background-priority.js';

/** Whether `promise` settled within a few turns of the event loop. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('PriorityGate', () => {
  it('runs at most `limit` background calls at once; a release admits the next', async () => {
    const gate = new PriorityGate(2, 10_000);
    const first = await gate.admit();
    await gate.admit();
    const third = gate.admit();
    expect(await settled(third)).toBe(false);
    expect(gate.state()).toEqual({ apiInFlight: 0, running: 2, waiting: 1 });
    first();
    first(); // a second release of the same slot changes nothing
    expect(await settled(third)).toBe(true);
    expect(gate.state()).toEqual({ apiInFlight: 0, running: 2, waiting: 0 });
  });

  it('holds background calls back while an API request is in flight and admits them when it is answered', async () => {
    const gate = new PriorityGate(4, 10_000);
    const answered = gate.apiRequest();
    const waiting = gate.admit();
    expect(await settled(waiting)).toBe(false);
    answered();
    expect(await settled(waiting)).toBe(true);
    expect(gate.state().apiInFlight).toBe(0);
  });

  it('never starves background work: a call waits at most maxWaitMs for the API', async () => {
    const gate = new PriorityGate(4, 20);
    gate.apiRequest(); // never answered
    const release = await gate.admit();
    expect(gate.state()).toEqual({ apiInFlight: 1, running: 1, waiting: 0 });
    release();
  });
});

describe('yieldToApi', () => {
  /** A client whose one middleware is what yieldToApi adds; `send` runs it around the call. */
  function client() {
    let middleware: ((next: (args: unknown) => Promise<unknown>) => (args: unknown) => Promise<unknown>) | undefined;
    const target = { middlewareStack: { add: (fn: typeof middleware) => void (middleware = fn) } };
    return { target, send: () => middleware!(async () => 'sent')({}) };
  }

  it('makes calls from background work wait for the gate, and leaves API calls alone', async () => {
    const gate = new PriorityGate(1, 10_000);
    const { target, send } = client();
    yieldToApi(target as never, gate);
    const answered = gate.apiRequest();
    expect(await settled(send())).toBe(true); // an API request's own call never waits
    const background = inBackground(() => send());
    expect(await settled(background)).toBe(false);
    answered();
    await expect(background).resolves.toBe('sent');
    expect(gate.state()).toEqual({ apiInFlight: 0, running: 0, waiting: 0 });
  });
});
