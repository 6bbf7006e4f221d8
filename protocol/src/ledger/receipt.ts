/**
 * The receipt (docs/API.md §2.3) the service returns for an accepted operation, its hash and
 * its signature (docs/PROTOCOL.md "Receipt").
 */
import { b64uDecode, b64uEncode } from '../encoding/base64url.js';
import { ProtocolError } from '../errors/protocolerror.js';
import { sha256B64u } from '../crypto/hash.js';
import { canonicalBytes } from '../encoding/jcs.js';
import type { Jwk } from '../crypto/jwk.js';
import { verifyWithJwks } from '../crypto/jwksverify.js';

/** Current `receipt_version` (docs/PROTOCOL.md: a byte-level change is a new version). */
export const RECEIPT_VERSION = '1.0';

/** A receipt exactly as docs/API.md §2.3 defines it. */
export type Receipt = {
  receipt_version: string;
  /** UUIDv7 made by the server */
  receipt_id: string;
  operation_id: string;
  org_id: string;
  agent_id: string;
  /** server clock (Unix ms) when the request was accepted */
  server_received_at: number;
  seq_no: number;
  chain_hash: string;
  queue_message_id: string;
  /** b64u(H(JCS(receipt \ {receipt_hash, service_kid, service_signature}))) */
  receipt_hash: string;
  /** RFC 7638 thumbprint of the service's Ed25519 key */
  service_kid: string;
  /** b64u(Sign(service_sk, b64u_decode(receipt_hash))) */
  service_signature: string;
};

/** The hashed part of a receipt. */
export type UnsignedReceipt = Omit<Receipt, 'receipt_hash' | 'service_kid' | 'service_signature'>;

/** The 12 members of a receipt, in docs/API.md §2.3 order. */
export const RECEIPT_FIELDS = [
  'receipt_version',
  'receipt_id',
  'operation_id',
  'org_id',
  'agent_id',
  'server_received_at',
  'seq_no',
  'chain_hash',
  'queue_message_id',
  'receipt_hash',
  'service_kid',
  'service_signature',
] as const satisfies readonly (keyof Receipt)[];

// Picked by name (not "everything but three") so that the hash is the protocol hash even
// when the object carries extra bookkeeping members; a missing member fails in JCS.
const HASHED_FIELDS = RECEIPT_FIELDS.filter(
  (f) => f !== 'receipt_hash' && f !== 'service_kid' && f !== 'service_signature',
);

function unsignedPart(r: UnsignedReceipt | Receipt): UnsignedReceipt {
  const src = r as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of HASHED_FIELDS) out[f] = src[f];
  return out as UnsignedReceipt;
}

/**
 * `receipt_hash = b64u(H(JCS(receipt \ {receipt_hash, service_kid, service_signature})))`
 * (docs/PROTOCOL.md "Receipt"). Accepts a finished receipt too; the three members are ignored.
 *
 * @example
 * receiptHash(receipt) === receipt.receipt_hash; // true for an untampered receipt
 */
export function receiptHash(r: UnsignedReceipt | Receipt): string {
  return sha256B64u(canonicalBytes(unsignedPart(r)));
}

/**
 * The bytes the service signs: `b64u_decode(receipt_hash)`, the 32 hash bytes themselves
 * (docs/PROTOCOL.md), which lets a KMS key sign them as a RAW message. Throws ProtocolError
 * `INVALID_HASH` unless they are 32 bytes of strict b64u.
 *
 * @example
 * await kms.sign({ Message: receiptSigningInput(hash), MessageType: 'RAW', ... });
 */
export function receiptSigningInput(receiptHashB64u: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = b64uDecode(receiptHashB64u);
  } catch (err) {
    throw new ProtocolError('INVALID_HASH', 'receipt_hash is not base64url', { cause: err });
  }
  if (bytes.byteLength !== 32) {
    throw new ProtocolError('INVALID_HASH', 'receipt_hash must be 32 bytes');
  }
  return bytes;
}

/**
 * Assemble a signed receipt from its hashed part, the signing key's kid and the 64-byte
 * signature over {@link receiptSigningInput}`(receiptHash(unsigned))`.
 * Throws ProtocolError `INVALID_SIGNATURE_LENGTH` for a signature that is not 64 bytes.
 *
 * @example
 * const hash = receiptHash(unsigned);
 * const sig = await signer.sign(receiptSigningInput(hash));
 * const receipt = finishReceipt(unsigned, signer.kid, sig);
 */
export function finishReceipt(unsigned: UnsignedReceipt, serviceKid: string, signatureBytes: Uint8Array): Receipt {
  if (!(signatureBytes instanceof Uint8Array) || signatureBytes.byteLength !== 64) {
    throw new ProtocolError('INVALID_SIGNATURE_LENGTH', 'Ed25519 signature must be 64 bytes');
  }
  return {
    ...unsignedPart(unsigned),
    receipt_hash: receiptHash(unsigned),
    service_kid: serviceKid,
    service_signature: b64uEncode(signatureBytes),
  };
}

/**
 * Verify a receipt against a JWKS (docs/PROTOCOL.md verify check `receipt`): the hash
 * recomputes, a JWKS key has `kid === service_kid`, that kid really is the key's RFC 7638
 * thumbprint (so a mislabelled JWKS entry cannot vouch for another key), and the
 * signature verifies. Returns false on any mismatch or malformed input; never throws.
 *
 * @example
 * verifyReceipt(receipt, await (await fetch(`${base}/.well-known/service/jwks.json`)).json());
 */
export function verifyReceipt(receipt: Receipt, jwks: { keys: readonly Jwk[] }): boolean {
  try {
    if (receipt === null || typeof receipt !== 'object') return false;
    if (receiptHash(receipt) !== receipt.receipt_hash) return false;
    return verifyWithJwks(jwks, receipt.service_kid, receiptSigningInput(receipt.receipt_hash), receipt.service_signature);
  } catch {
    return false;
  }
}
