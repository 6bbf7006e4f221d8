/**
 * First-come turns per key within one process, each holder handing a value to the next: the
 * one thing it learned that the next would otherwise read again (for the key history, the
 * head it wrote). A holder that learned nothing trustworthy hands over `undefined`.
 *
 * Turns are taken in the order they were joined, and a turn that ends (or gives up waiting)
 * never holds up the next beyond the turns before it. Keys do not wait for each other.
 */

interface Turn<V> {
  /**
   * Resolves once every earlier turn of the key has ended, with what the last of them handed
   * over; `null` if `deadline` (epoch ms) comes first.
   */
  ready(deadline: number): Promise<{ handedOver: V | undefined } | null>;
  /** Ends this turn, handing `value` to the next. Only the first call counts. */
  end(value?: V): void;
}

export class TurnQueue<V> {
  /** Per key, what the last joined turn will hand over once it and every turn before it end. */
  private readonly tails = new Map<string, Promise<V | undefined>>();

  join(key: string): Turn<V> {
    const previous = this.tails.get(key) ?? Promise.resolve(undefined);
    let end!: (value?: V) => void;
    const ended = new Promise<V | undefined>((resolve) => (end = resolve));
    // The next turn waits for this one and, if this one gave up waiting, for the one before.
    const tail = Promise.all([previous, ended]).then(([, value]) => value);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return { ready: (deadline) => settledBefore(previous, deadline), end };
  }
}

function settledBefore<V>(previous: Promise<V | undefined>, deadline: number): Promise<{ handedOver: V | undefined } | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), Math.max(0, deadline - Date.now()))));
  return Promise.race([previous.then((handedOver) => ({ handedOver })), late]).finally(() => clearTimeout(timer));
}
