// Loads the conformance vectors kept in protocol/test/vectors/ (the same files serve every implementation).
import { readFileSync } from 'node:fs';

export function loadVectors<T>(name: 'jcs.json' | 'records.json' | 'receipt.json' | 'merkle.json' | 'checkpoint.json'): T {
  return JSON.parse(readFileSync(new URL(`./vectors/${name}`, import.meta.url), 'utf8')) as T;
}

export function hex(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'hex'));
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
