/**
 * Bodies of the operation endpoints (docs/API.md §2.1-2.3, §4.5) with the wire rules of
 * docs/PROTOCOL.md "Operation record": exactly the 15 members, unknown members rejected,
 * non-negative safe integers (ttl_ms at most 24 hours), strict base64url of the right lengths.
 *
 * Only the request *shape* is checked here (check-order step 1). Everything that depends on
 * stored state or on the payload size (PAYLOAD_TOO_LARGE comes after the agent and key
 * checks) is left to the submission use case.
 */
import * as z from 'zod';
import { isB64u, MAX_TTL_MS, OP_VERSION, RECEIPT_VERSION } from '@agent-ledger/protocol';
import { unixMs } from './common.js';
import { agentIdSchema, kidSchema } from './agents.js';

/** RFC 9562 §5.7 UUIDv7 in canonical lower-case form (one spelling per id: it is a key). */
const UUID_V7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Dotted style, at least `domain.verb` (docs/API.md §2.1). */
export const OPERATION_TYPE_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$/;

/** Visible ASCII: a nonce is a key segment (`...#NONCE#<nonce>`), so no spaces or controls. */
const NONCE_PATTERN = /^[\x21-\x7e]{1,256}$/;

const safeInteger = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const sha256B64u = z.string().refine((value) => isB64u(value, 32), 'must be a SHA-256 value in unpadded base64url (43 characters)');
const signatureB64u = z
  .string()
  .refine((value) => isB64u(value, 64), 'must be an Ed25519 signature in unpadded base64url (86 characters)');
/**
 * A JSON object (not an array, not null). A member named `__proto__` at its top is refused
 * by name: JSON.parse keeps it as an own member, but copying the object (as the record
 * schema does) would turn it into the copy's prototype and drop it from what is hashed,
 * so a record signed with it would fail as INVALID_SIGNATURE with no hint why. Nested
 * deeper it is kept as signed (values below the top are not copied).
 */
const refuseProtoMember = (value: unknown, context: z.RefinementCtx): unknown => {
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
    context.addIssue({
      code: 'custom',
      message: 'a top-level member named "__proto__" is not accepted (it cannot be kept exactly as signed); rename it or nest it one level down',
    });
  }
  return value;
};
const plainObject = z.record(z.string(), z.unknown());
const jsonObject = z.preprocess(refuseProtoMember, plainObject);

const operationIdSchema = z.string().regex(UUID_V7_PATTERN, 'must be a lower-case UUIDv7');

/** docs/API.md §2.1, exactly. */
export const operationRecordSchema = z.strictObject({
  op_version: z.literal(OP_VERSION),
  operation_id: operationIdSchema,
  org_id: z.string().min(1).max(128),
  agent_id: agentIdSchema,
  issued_at: safeInteger,
  // docs/PROTOCOL.md: a record is valid for at most 24 hours after issued_at.
  ttl_ms: z.number().int().nonnegative().max(MAX_TTL_MS, 'must be at most 86400000 (24 hours)'),
  nonce: z.string().regex(NONCE_PATTERN, 'must be 1-256 visible ASCII characters'),
  operation_type: z.string().max(128).regex(OPERATION_TYPE_PATTERN, 'must be dotted, e.g. domain.verb'),
  subject: jsonObject,
  action: jsonObject,
  payload: z.preprocess(refuseProtoMember, z.union([plainObject, z.string(), z.null()])),
  payload_hash: sha256B64u,
  prev_chain_hash: sha256B64u,
  agent_pubkey_kid: kidSchema,
  signature: signatureB64u,
});

export const operationParams = z.strictObject({ operation_id: operationIdSchema });

/** docs/API.md §2.3. */
const receiptSchema = z
  .object({
    receipt_version: z.string().describe(`currently ${RECEIPT_VERSION}`),
    receipt_id: z.string(),
    operation_id: z.string(),
    org_id: z.string(),
    agent_id: z.string(),
    server_received_at: unixMs,
    seq_no: z.number().int().positive(),
    chain_hash: z.string(),
    queue_message_id: z.string().describe('id of the operation.accepted event (event_id of the events queue message), fixed before the commit'),
    receipt_hash: z.string(),
    service_kid: z.string(),
    service_signature: z.string(),
  })
  .meta({ id: 'Receipt' });

/** docs/API.md §2.2: subject and action are JSON-encoded strings. */
export const storedOperationSchema = z
  .object({
    operation_id: z.string(),
    org_id: z.string(),
    agent_id: z.string(),
    seq_no: z.number().int().positive(),
    operation_type: z.string(),
    issued_at: unixMs,
    ttl_ms: unixMs,
    nonce: z.string(),
    subject: z.string(),
    action: z.string(),
    payload_hash: z.string(),
    prev_chain_hash: z.string(),
    chain_hash: z.string(),
    agent_pubkey_kid: z.string(),
    signature: z.string(),
    store_payload_key: z
      .string()
      .describe('the payload\'s name in the store, payloads/<org_id>/<operation_id>/<payload_hash>.json; a payload up to LEDGER_INLINE_PAYLOAD_BYTES is kept in the operation row, a larger one is an object of the data bucket (docs/STORAGE.md)'),
    created_at: unixMs,
  })
  .meta({ id: 'StoredOperation' });

/** docs/API.md §2.3, stored receipt reference. */
const receiptReferenceSchema = z.object({
  receipt_id: z.string(),
  operation_id: z.string(),
  store_receipt_key: z
    .string()
    .describe('the receipt\'s name in the store, receipts/<org_id>/<operation_id>/<queue_message_id>.json; the receipt is kept in the operation row (docs/STORAGE.md)'),
  created_at: unixMs,
});

export const submitResponse = z.object({ receipt: receiptSchema });

/**
 * `payload` is absent when the stored payload is gone (erased after a data-protection
 * request). `receipt` is null only for a row an earlier version wrote whose receipt was
 * never completed: since receipts are signed before the commit (docs/STORAGE.md), every
 * operation accepted now has one.
 */
/** An erased payload's mark (POST /v1/operations/:operation_id/erase-payload): who erased it, when, why. */
const payloadErasureSchema = z
  .object({ by: z.string(), at: unixMs, reason: z.string() })
  .meta({ id: 'PayloadErasure', description: 'The payload was erased by this owner (user id), at this time, for this reason; payload_hash stays.' });

export const getOperationResponse = z.object({
  operation: storedOperationSchema,
  receipt: receiptReferenceSchema.nullable(),
  /**
   * The signed receipt as stored (docs/API.md §2.3), for verifying it without trusting the
   * service's verify answer; null while `receipt` is null, or when the stored object is not JSON.
   * Its members are not checked here: a tampered object is shown as it is, and fails verification.
   */
  signed_receipt: z.record(z.string(), z.unknown()).nullable().meta({ description: 'The stored signed receipt (docs/API.md §2.3), as stored.' }),
  /** The agent's operation at seq_no − 1, whose chain_hash prev_chain_hash must equal; null for the first. */
  previous_operation_id: z.string().nullable(),
  payload: z.union([jsonObject, z.string(), z.null()]).optional(),
  /** Present once the payload was erased (then `payload` is absent). */
  payload_erased: payloadErasureSchema.optional(),
});

/** RFC 9162 inclusion proof as docs/PROTOCOL.md "Merkle epochs" describes it. */
const inclusionProofSchema = z.object({
  epoch_id: z.string(),
  leaf_index: z.number().int().nonnegative(),
  tree_size: z.number().int().positive(),
  audit_path: z.array(z.string()),
  root_hash: z.string(),
});

/** docs/PROTOCOL.md "Verify endpoint": merkle and proof appear once an epoch covers the operation. */
export const verifyResponse = z.object({
  valid: z.boolean(),
  checks: z.object({
    signature: z.boolean(),
    chain: z.boolean(),
    receipt: z.boolean(),
    merkle: z.boolean().optional(),
  }),
  proof: inclusionProofSchema.optional(),
});

export const erasePayloadBody = z.strictObject({
  reason: z.string().trim().min(1).max(500).describe('Why the payload is erased (kept in the admin log and the mark).'),
});

export const erasePayloadResponse = z.object({ operation_id: z.string(), payload_erased: payloadErasureSchema });
