/**
 * Proof of possession of an agent key (docs/PROTOCOL.md "Key events"): whoever registers a
 * key signs, with that key, the organization, the agent, the kid and the registration time.
 * The service refuses a key without it, stores it in the key's registration event, and every
 * export carries it, so a key in an agent's history was held by whoever registered it; a key
 * the service made up later carries no such proof unless the service holds its private half
 * too, which is what an auditor's pins (pins.ts) catch.
 */
import type { KeyObject } from 'node:crypto';
import { b64uEncode } from '../encoding/base64url.js';
import { sign, verify } from '../crypto/ed25519.js';
import { canonicalBytes } from '../encoding/jcs.js';

/** Names what the signature is for, so that no other signed object can pass as a proof. */
export const POSSESSION_PURPOSE = 'agent-ledger key possession v1';

/**
 * How far the proof's `registered_at` may be from the service's clock when the key is
 * registered (and from the event's `time` in an export): the same five minutes a signed
 * request may be in flight.
 */
export const POSSESSION_MAX_SKEW_MS = 5 * 60_000;

/** What the key signs (before canonicalization). */
export type PossessionStatement = { org_id: string; agent_id: string; kid: string; registered_at: number };

/** The proof as sent with a key and stored in its event: the statement's time and the signature. */
export type PossessionProof = { registered_at: number; signature: string };

/**
 * The signed bytes: `JCS({purpose, org_id, agent_id, kid, registered_at})` (RFC 8785).
 *
 * @example
 * possessionMessage({ org_id: 'o', agent_id: 'a', kid: 'k1', registered_at: 1 });
 */
export function possessionMessage(s: PossessionStatement): Uint8Array {
  return canonicalBytes({ purpose: POSSESSION_PURPOSE, org_id: s.org_id, agent_id: s.agent_id, kid: s.kid, registered_at: s.registered_at });
}

/**
 * Sign a proof of possession with the new key's private half.
 *
 * @example
 * const proof = provePossession(privateKey, { org_id, agent_id, kid: 'k1', registered_at: Date.now() });
 */
export function provePossession(privateKey: KeyObject, s: PossessionStatement): PossessionProof {
  return { registered_at: s.registered_at, signature: b64uEncode(sign(privateKey, possessionMessage(s))) };
}

/**
 * null when `proof` is `publicKey`'s signature over the statement, its time within
 * {@link POSSESSION_MAX_SKEW_MS} of `at`; otherwise why not.
 *
 * @example
 * possessionProblem(proof, 'b64u-public-key', { org_id, agent_id, kid }, Date.now()); // null
 */
export function possessionProblem(proof: unknown, publicKey: string, who: Omit<PossessionStatement, 'registered_at'>, at: number): string | null {
  if (proof === null || typeof proof !== 'object' || Array.isArray(proof)) return 'the proof of possession is missing';
  const p = proof as Record<string, unknown>;
  const extra = Object.keys(p).find((k) => k !== 'registered_at' && k !== 'signature');
  if (extra !== undefined) return `the proof of possession has an unknown member '${extra}'`;
  if (!Number.isSafeInteger(p.registered_at) || typeof p.signature !== 'string') return 'the proof of possession must be {registered_at: Unix ms, signature: base64url}';
  const registeredAt = p.registered_at as number;
  if (Math.abs(registeredAt - at) > POSSESSION_MAX_SKEW_MS) {
    return `the proof of possession's registered_at ${registeredAt} is more than ${POSSESSION_MAX_SKEW_MS / 60_000} minutes from the registration time ${at}`;
  }
  const ok = verify(publicKey, possessionMessage({ ...who, registered_at: registeredAt }), p.signature);
  return ok ? null : `the proof of possession is not a signature by key ${who.kid} over (org_id, agent_id, kid, registered_at)`;
}
