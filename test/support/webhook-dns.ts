/**
 * Fake DNS for the webhook egress tests: names resolve to the addresses the test chose, and
 * may change between registration and delivery (DNS rebinding). The service's transport
 * reads the override at every lookup (lambdas/runtime/webhook-transport.ts).
 */
import type { ResolvedAddress } from '../../lambdas/adapters/webhooks/https-transport.js';
import { WEBHOOK_RESOLVE_OVERRIDE } from '../../lambdas/runtime/webhook-transport.js';

export interface FakeDns {
  /** Sets what `name` resolves to from now on. */
  set(name: string, ...addresses: string[]): void;
  /** Names looked up so far, in order. */
  lookups: string[];
  restore(): void;
}

export function fakeDns(records: Record<string, string[]> = {}): FakeDns {
  const table = new Map(Object.entries(records));
  const lookups: string[] = [];
  const holder = globalThis as { [WEBHOOK_RESOLVE_OVERRIDE]?: (name: string) => Promise<ResolvedAddress[]> };
  const previous = holder[WEBHOOK_RESOLVE_OVERRIDE];
  holder[WEBHOOK_RESOLVE_OVERRIDE] = async (name) => {
    lookups.push(name);
    const addresses = table.get(name.replace(/\.$/, '').toLowerCase());
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return {
    set: (name, ...addresses) => void table.set(name.toLowerCase(), addresses),
    lookups,
    restore: () => {
      holder[WEBHOOK_RESOLVE_OVERRIDE] = previous;
    },
  };
}
