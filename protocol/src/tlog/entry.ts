/**
 * The entries of an organization's epoch log (docs/CHECKPOINTS.md "Entries"): each sealed
 * epoch is one leaf of an append-only RFC 9162 Merkle tree, committed to by its entry hash.
 * The entry names the epoch's index in the log and the root of the epoch before it, so
 * leaving an epoch out, or reordering two, changes every later entry.
 */
import { b64uEncode } from '../encoding/base64url.js';
import { sha256B64u } from '../crypto/hash.js';
import { canonicalBytes } from '../encoding/jcs.js';
import { leafHash } from '../merkle/merklehash.js';

/** `prev_root_hash` of the entry at index 0: 32 zero bytes (docs/CHECKPOINTS.md "Entries"). */
export const GENESIS_PREV_ROOT = b64uEncode(new Uint8Array(32));

/** What an epoch contributes to its organization's log: the epoch resource plus its place. */
export type EpochLogEntry = {
  epoch_id: string;
  org_id: string;
  /** 0, 1, 2, … per organization, no gaps: the leaf index in the log */
  epoch_index: number;
  start_time: number;
  end_time: number;
  /** the epoch's own Merkle root over its operations (docs/PROTOCOL.md "Merkle epochs") */
  root_hash: string;
  leaf_count: number;
  /** root_hash of the entry at epoch_index - 1; {@link GENESIS_PREV_ROOT} at index 0 */
  prev_root_hash: string;
  /**
   * Entries sealed since key history exists (docs/CHECKPOINTS.md "Key history"): how many
   * key events the organization had when the epoch was sealed, and the hash of the last one
   * (keys/event.ts; GENESIS_KEY_EVENT when none). Absent from earlier entries.
   */
  key_log_size?: number;
  key_log_head?: string;
};

/** The members of {@link EpochLogEntry}, the ones the entry hash covers. */
export const LOG_ENTRY_FIELDS = [
  'epoch_id',
  'org_id',
  'epoch_index',
  'start_time',
  'end_time',
  'root_hash',
  'leaf_count',
  'prev_root_hash',
] as const satisfies readonly (keyof EpochLogEntry)[];

/** The members an entry has when it commits to the key history; hashed when present. */
export const KEY_COMMITMENT_FIELDS = ['key_log_size', 'key_log_head'] as const satisfies readonly (keyof EpochLogEntry)[];

/**
 * `entry_hash = b64u(SHA-256(JCS({type: "epoch", ...entry})))`, with `key_log_size` and
 * `key_log_head` among the members when the entry has them. The `type` member keeps key
 * events' hashes (keys/event.ts) apart.
 *
 * @example
 * logEntryHash(entry); // 43-character b64u
 */
export function logEntryHash(entry: EpochLogEntry): string {
  const picked: Record<string, unknown> = { type: 'epoch' };
  for (const field of LOG_ENTRY_FIELDS) picked[field] = entry[field];
  for (const field of KEY_COMMITMENT_FIELDS) if (entry[field] !== undefined) picked[field] = entry[field];
  return sha256B64u(canonicalBytes(picked));
}

/**
 * The log tree's leaf for an entry hash: RFC 9162 `H(0x00 || entry_hash bytes)`, the same
 * leaf hashing as an epoch's operations (merkle/merklehash.ts).
 *
 * @example
 * logLeafHash(logEntryHash(entry));
 */
export function logLeafHash(entryHashB64u: string): Uint8Array {
  return leafHash(entryHashB64u);
}

/**
 * The checkpoint origin of an organization's log, also the note key name
 * (docs/CHECKPOINTS.md "Checkpoint").
 *
 * @example
 * logOrigin('0190…'); // 'agent-ledger/0190…'
 */
export function logOrigin(orgId: string): string {
  return `agent-ledger/${orgId}`;
}
