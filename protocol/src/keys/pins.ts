/**
 * Agent key pins (docs/EXPORT.md "Pinned agent keys"): what an auditor learned of an
 * agent's keys from the agent's own machine (`agent-ledger agent keys --export`), not from
 * the service. A JSON object mapping agent id to a list of public keys, each an Ed25519 JWK
 * or its RFC 7638 thumbprint. Against pins, an export whose keys the service replaced
 * fails even when everything in it is consistently re-signed.
 */
import { isB64u } from '../encoding/base64url.js';
import { isPlainObject } from '../encoding/jsonobject.js';
import { keyThumbprint } from './event.js';

/** Agent id → the pinned keys' thumbprints. */
export type AgentKeyPins = Map<string, Set<string>>;

/** How an agent's keys compare with the pins. */
export type PinStatus = 'pinned' | 'unpinned' | 'mismatched';

/**
 * Read a pins document; throws an Error naming the first bad member.
 *
 * @example
 * parseAgentKeyPins({ 'agent-a': [{ kty: 'OKP', crv: 'Ed25519', x: '…' }, 'kPrK_qmx…'] });
 */
export function parseAgentKeyPins(value: unknown): AgentKeyPins {
  if (!isPlainObject(value)) throw new Error('agent key pins must be a JSON object of agent id to a list of keys');
  const pins: AgentKeyPins = new Map();
  for (const [agentId, list] of Object.entries(value)) {
    if (!Array.isArray(list)) throw new Error(`pins of agent ${agentId} must be a list of JWKs or RFC 7638 thumbprints`);
    const set = new Set<string>();
    list.forEach((item, i) => {
      if (typeof item === 'string' && isB64u(item, 32)) return set.add(item);
      if (isPlainObject(item) && item.kty === 'OKP' && item.crv === 'Ed25519' && isB64u(item.x, 32)) return set.add(keyThumbprint(item.x as string));
      throw new Error(`pin ${i} of agent ${agentId} is neither an Ed25519 JWK nor an RFC 7638 thumbprint (43 base64url characters)`);
    });
    pins.set(agentId, set);
  }
  return pins;
}

/**
 * Compare an agent's keys (their thumbprints) with the pins: `unpinned` when the pins do not
 * name the agent, `pinned` when every key is pinned, else `mismatched` with the keys that
 * are not.
 *
 * @example
 * pinStatus(pins, 'agent-a', ['kPrK_qmx…']); // { status: 'pinned', unpinned_keys: [] }
 */
export function pinStatus(pins: AgentKeyPins | null, agentId: string, thumbprints: readonly string[]): { status: PinStatus; unpinned_keys: string[] } {
  const pinned = pins?.get(agentId);
  if (pinned === undefined) return { status: 'unpinned', unpinned_keys: [] };
  const off = thumbprints.filter((t) => !pinned.has(t));
  return { status: off.length === 0 ? 'pinned' : 'mismatched', unpinned_keys: off };
}
