/** The generator's guard: a recomputed value must equal the published one, or nothing is written. */
import { isDeepStrictEqual } from 'node:util';

export function agree(label: string, actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) {
    throw new Error(`${label}: computed ${JSON.stringify(actual)}, the reference says ${JSON.stringify(expected)}`);
  }
}

export function hexBytes(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'hex'));
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
