/**
 * Key events (docs/PROTOCOL.md "Key events"): every change to an agent's keys, one event per
 * key, numbered per organization and hash-chained, so that the organization's whole key
 * history is one append-only sequence. Each entry of the epoch log sealed after an event
 * commits to the sequence so far (`key_log_size`, `key_log_head`, tlog/entry.ts), and the
 * log's checkpoints commit to the entries: replacing a key after the fact changes the head
 * every later entry names, and so every checkpoint published since.
 */
import { b64uEncode } from '../encoding/base64url.js';
import { sha256B64u } from '../crypto/hash.js';
import { jwkThumbprint } from '../crypto/jwk.js';
import { canonicalBytes } from '../encoding/jcs.js';
import type { PossessionProof } from './possession.js';

/** What happened to the key: `register` (with its agent), `add`, `retire`, `revoke`, `delete` (its agent was deleted). */
export const KEY_EVENT_KINDS = ['register', 'add', 'retire', 'revoke', 'delete'] as const;
export type KeyEventKind = (typeof KEY_EVENT_KINDS)[number];

/** Kinds that bring a key into use: they carry its public key and a proof of possession. */
export const KEY_START_KINDS: readonly KeyEventKind[] = ['register', 'add'];

/** `prev_event_hash` of the event at key_index 0, and `key_log_head` of an empty history: 32 zero bytes. */
export const GENESIS_KEY_EVENT = b64uEncode(new Uint8Array(32));

/** One key event, as stored, exported and hashed. */
export type KeyEvent = {
  org_id: string;
  /** 0, 1, 2, … per organization, no gaps */
  key_index: number;
  event: KeyEventKind;
  agent_id: string;
  kid: string;
  /** RFC 7638 thumbprint of the key's JWK {crv: "Ed25519", kty: "OKP", x} */
  thumbprint: string;
  /** b64u raw Ed25519 public key for `register` and `add`; null otherwise */
  public_key: string | null;
  /** server time, Unix ms */
  time: number;
  /** who made the change: a user id, or `agent:<agent_id>` for an agent's own request */
  actor: string;
  /** `register` and `add`: the proof of possession (possession.ts); null otherwise */
  proof: PossessionProof | null;
  /** event_hash of the event at key_index - 1; {@link GENESIS_KEY_EVENT} at 0 */
  prev_event_hash: string;
};

/** The members of {@link KeyEvent}, all covered by its hash. */
export const KEY_EVENT_FIELDS = [
  'org_id',
  'key_index',
  'event',
  'agent_id',
  'kid',
  'thumbprint',
  'public_key',
  'time',
  'actor',
  'proof',
  'prev_event_hash',
] as const satisfies readonly (keyof KeyEvent)[];

/**
 * `event_hash = b64u(SHA-256(JCS({"type": "key", ...event})))` (RFC 8785): the `type`
 * member keeps it apart from an epoch entry's hash (tlog/entry.ts).
 *
 * @example
 * keyEventHash(event); // 43-character b64u
 */
export function keyEventHash(event: KeyEvent): string {
  const picked: Record<string, unknown> = { type: 'key' };
  for (const field of KEY_EVENT_FIELDS) picked[field] = event[field];
  return sha256B64u(canonicalBytes(picked));
}

/**
 * RFC 7638 thumbprint of a raw Ed25519 public key given as b64u: the name of a key in key
 * events and pins.
 *
 * @example
 * keyThumbprint('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo'); // 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k'
 */
export function keyThumbprint(publicKey: string): string {
  return jwkThumbprint({ crv: 'Ed25519', kty: 'OKP', x: publicKey });
}

/** What one key change adds to the history; chainKeyEvents numbers and chains it. */
export type KeyEventDraft = {
  event: KeyEventKind;
  agent_id: string;
  kid: string;
  /** b64u raw public key of the key concerned (named by its thumbprint in every event) */
  key: string;
  time: number;
  actor: string;
  /** `register` and `add` only */
  proof: PossessionProof | null;
};

/**
 * Number and chain `drafts` after a history of `size` events whose last hash is `head`:
 * what the service appends in the transaction that changes the keys.
 *
 * @example
 * const [event] = chainKeyEvents('org', 0, GENESIS_KEY_EVENT, [{ event: 'register', agent_id, kid, key, time, actor, proof }]);
 */
export function chainKeyEvents(orgId: string, size: number, head: string, drafts: readonly KeyEventDraft[]): KeyEvent[] {
  const events: KeyEvent[] = [];
  let prev = head;
  drafts.forEach((d, i) => {
    const starts = KEY_START_KINDS.includes(d.event);
    const event: KeyEvent = {
      org_id: orgId,
      key_index: size + i,
      event: d.event,
      agent_id: d.agent_id,
      kid: d.kid,
      thumbprint: keyThumbprint(d.key),
      public_key: starts ? d.key : null,
      time: d.time,
      actor: d.actor,
      proof: starts ? d.proof : null,
      prev_event_hash: prev,
    };
    prev = keyEventHash(event);
    events.push(event);
  });
  return events;
}
