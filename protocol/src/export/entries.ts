/**
 * The elements of an export bundle built with exactly their docs/EXPORT.md members. The
 * writer is handed store items that carry bookkeeping besides the docs/API.md fields (table
 * keys, op_version, receipt ids, ...); picking by name keeps those out of the file, and a
 * missing member stays `undefined`, which canonicalization refuses loudly.
 */
import {
  AGENT_KEY_FIELDS,
  ANCHOR_FIELDS,
  EPOCH_FIELDS,
  PROOF_FIELDS,
  SERVICE_JWK_FIELDS,
  SIGNED_RECORD_FIELDS,
  STORED_ROW_FIELDS,
  type ExportAgentKey,
  type ExportEpoch,
  type ExportEpochRecord,
  type ExportOperation,
} from './format.js';
import type { Ed25519Jwk } from '../crypto/jwk.js';
import { RECEIPT_FIELDS } from '../ledger/receipt.js';

/**
 * A new object with exactly `fields` of `source`, in that order.
 *
 * @example
 * pickFields({ a: 1, b: 2, c: 3 }, ['a', 'c']); // { a: 1, c: 3 }
 */
export function pickFields<T>(source: object, fields: readonly string[]): T {
  const src = source as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f] = src[f];
  return out as T;
}

/**
 * One `body.operations` element with exactly its members; `payload` and `proof` only when
 * the input has them (a `null` payload is a payload).
 *
 * @example
 * operationEntry({ row: dynamoItem, record, receipt }); // dynamoItem's bookkeeping dropped
 */
export function operationEntry(operation: ExportOperation): ExportOperation {
  const entry: ExportOperation = {
    row: pickFields(operation.row, STORED_ROW_FIELDS),
    record: pickFields(operation.record, SIGNED_RECORD_FIELDS),
    receipt: pickFields(operation.receipt, RECEIPT_FIELDS),
  };
  if (Object.hasOwn(operation, 'payload')) entry.payload = operation.payload;
  if (operation.payload_erased !== undefined) entry.payload_erased = pickFields(operation.payload_erased, ['by', 'at', 'reason']);
  if (operation.proof !== undefined) entry.proof = pickFields(operation.proof, PROOF_FIELDS);
  return entry;
}

/**
 * One `verification_material.agent_keys` element.
 *
 * @example
 * agentKeyEntry({ ...keyItem, status: 'active' });
 */
export function agentKeyEntry(key: ExportAgentKey): ExportAgentKey {
  const entry = pickFields<ExportAgentKey>(key, AGENT_KEY_FIELDS);
  // Optional (bundle 1.2): omitted where the service does not know it, and the verifier then reads the key history alone.
  if (typeof key.possession_proven === 'boolean') entry.possession_proven = key.possession_proven;
  return entry;
}

/**
 * One `verification_material.epochs` element; `anchor` only when the epoch has one.
 *
 * @example
 * epochEntry({ epoch, anchor }); // as GET /v1/epochs/:epoch_id answers
 */
export function epochEntry(entry: ExportEpoch): ExportEpoch {
  const out: ExportEpoch = { epoch: pickFields<ExportEpochRecord>(entry.epoch, EPOCH_FIELDS) };
  if (entry.anchor !== undefined && entry.anchor !== null) out.anchor = pickFields(entry.anchor, ANCHOR_FIELDS);
  return out;
}

/**
 * One `service_jwks.keys` element.
 *
 * @example
 * serviceJwkEntry(ed25519Jwk(publicKey));
 */
export function serviceJwkEntry(jwk: Ed25519Jwk): Ed25519Jwk {
  return pickFields(jwk, SERVICE_JWK_FIELDS);
}
