/**
 * The operation record (EOR) of docs/API.md §2.1 and its hashes (docs/PROTOCOL.md "Operation
 * record"): payload hash, signing input, signature, record digest and chain hash.
 *
 * These functions take the record as submitted, with `subject` and `action` as objects;
 * the stored row (docs/API.md §2.2) keeps them JSON-encoded and must be parsed back first.
 */
import type { KeyObject } from 'node:crypto';
import { b64uDecode, b64uEncode } from '../encoding/base64url.js';
import { sign, verify } from '../crypto/ed25519.js';
import { ProtocolError } from '../errors/protocolerror.js';
import { sha256, sha256B64u } from '../crypto/hash.js';
import { canonicalBytes } from '../encoding/jcs.js';

/** Current `op_version` (docs/PROTOCOL.md: a byte-level change is a new op_version). */
export const OP_VERSION = '1.0';

/** Largest `ttl_ms` of a record: 24 hours (docs/PROTOCOL.md, Operation record). */
export const MAX_TTL_MS = 86_400_000;

/** `prev_chain_hash` of an agent's first record: b64u of 32 zero bytes (docs/PROTOCOL.md). */
export const GENESIS = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** An operation record exactly as docs/API.md §2.1 defines it. */
export type OperationRecord = {
  op_version: string;
  operation_id: string;
  org_id: string;
  agent_id: string;
  /** Unix ms, non-negative safe integer */
  issued_at: number;
  /** ms, non-negative integer, at most MAX_TTL_MS */
  ttl_ms: number;
  nonce: string;
  operation_type: string;
  subject: Record<string, unknown>;
  action: Record<string, unknown>;
  payload: Record<string, unknown> | string | null;
  /** b64u(H(JCS(payload))) */
  payload_hash: string;
  prev_chain_hash: string;
  agent_pubkey_kid: string;
  /** b64u(Sign(agent_sk, signing_input)) */
  signature: string;
};

/** A record before signing. */
export type UnsignedRecord = Omit<OperationRecord, 'signature'>;

/** The 15 members of an operation record, in docs/API.md §2.1 order. */
export const RECORD_FIELDS = [
  'op_version',
  'operation_id',
  'org_id',
  'agent_id',
  'issued_at',
  'ttl_ms',
  'nonce',
  'operation_type',
  'subject',
  'action',
  'payload',
  'payload_hash',
  'prev_chain_hash',
  'agent_pubkey_kid',
  'signature',
] as const satisfies readonly (keyof OperationRecord)[];

// `record \ {signature, payload}` and `record \ {payload}` (docs/PROTOCOL.md). Members are
// picked by name rather than by deleting two keys, so that an object carrying extra
// fields (e.g. a stored row's seq_no / chain_hash) still yields the protocol bytes;
// rejecting unknown members is the API layer's job (VALIDATION_ERROR).
const SIGNED_FIELDS = RECORD_FIELDS.filter((f) => f !== 'signature' && f !== 'payload');
const DIGEST_FIELDS = RECORD_FIELDS.filter((f) => f !== 'payload');

function pick(record: object, fields: readonly string[]): Record<string, unknown> {
  const src = record as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f] = src[f]; // a missing member is undefined: JCS rejects it
  return out;
}

/**
 * `payload_hash = b64u(H(JCS(payload)))` (docs/PROTOCOL.md). The payload is bound to the
 * signature only through this hash, so it can later be erased without breaking anything.
 *
 * @example
 * payloadHash(null); // 'dCNOmK_nSY-12vHzasLXiswzlGT5UHA7jAGYkvmCuQs'
 */
export function payloadHash(payload: OperationRecord['payload']): string {
  return sha256B64u(canonicalBytes(payload));
}

/**
 * `signing_input = JCS(record \ {signature, payload})` as UTF-8 (docs/PROTOCOL.md): the bytes
 * the agent signs. Throws CanonicalizationError if a member is missing or not JSON.
 *
 * @example
 * sign(agentKey, signingInput(unsigned));
 */
export function signingInput(record: UnsignedRecord | OperationRecord): Uint8Array {
  return canonicalBytes(pick(record, SIGNED_FIELDS));
}

/**
 * Sign a record: `signature = b64u(Sign(agent_sk, signing_input))` (docs/PROTOCOL.md).
 * Returns a new record; `payload_hash` must already be set (see {@link payloadHash}).
 *
 * @example
 * const rec = signRecord({ ...fields, payload_hash: payloadHash(fields.payload) }, sk);
 */
export function signRecord(unsigned: UnsignedRecord, privateKey: KeyObject): OperationRecord {
  const signature = b64uEncode(sign(privateKey, signingInput(unsigned)));
  return { ...unsigned, signature };
}

/**
 * True when `record.signature` verifies over its signing input with `publicKey`
 * (docs/PROTOCOL.md verify check `signature`). Does not look at the payload: compare
 * {@link payloadHash} separately when the payload is present. Never throws.
 *
 * @example
 * verifyRecordSignature(rec, agentKey.public_key); // true
 */
export function verifyRecordSignature(record: OperationRecord, publicKey: KeyObject | string | Uint8Array): boolean {
  try {
    return verify(publicKey, signingInput(record), record.signature);
  } catch {
    return false;
  }
}

/**
 * `record_digest = H(JCS(record \ {payload}))`, signature included (docs/PROTOCOL.md).
 *
 * @example
 * b64uEncode(recordDigest(rec)); // 43-char digest
 */
export function recordDigest(record: OperationRecord): Uint8Array {
  return sha256(canonicalBytes(pick(record, DIGEST_FIELDS)));
}

/**
 * `chain_hash = b64u(H(b64u_decode(prev_chain_hash) || record_digest))` (docs/PROTOCOL.md).
 * Throws ProtocolError `INVALID_HASH` if `prevChainHash` is not 32 bytes of strict b64u.
 *
 * @example
 * const head1 = chainHash(GENESIS, first);
 * const head2 = chainHash(head1, second);
 */
export function chainHash(prevChainHash: string, record: OperationRecord): string {
  let prev: Uint8Array;
  try {
    prev = b64uDecode(prevChainHash);
  } catch (err) {
    throw new ProtocolError('INVALID_HASH', 'prev_chain_hash is not base64url', { cause: err });
  }
  if (prev.byteLength !== 32) {
    throw new ProtocolError('INVALID_HASH', 'prev_chain_hash must be 32 bytes');
  }
  return sha256B64u(prev, recordDigest(record));
}
