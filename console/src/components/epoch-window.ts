/**
 * The service's epoch window in words. The API does not state it, but every epoch covers one
 * window (docs/PROTOCOL.md, Merkle epochs), so any sealed epoch tells: `end_time - start_time`.
 * Before the first epoch there is nothing to read it from, and the text says so plainly.
 */
import type { Schemas } from '../api/client.js';

/** The window length in ms, from the newest epoch listed; undefined when none is. */
export function windowOf(epochs: readonly Pick<Schemas['Epoch'], 'start_time' | 'end_time'>[]): number | undefined {
  const epoch = epochs[0];
  return epoch === undefined ? undefined : epoch.end_time - epoch.start_time;
}

/** "5 minutes", "30 seconds", "1 hour": the window in the largest whole unit. */
export function windowText(ms: number): string {
  const units: [number, string][] = [
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) {
      const n = ms / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${ms} ms`;
}
