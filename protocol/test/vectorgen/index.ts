/**
 * Every file of protocol/test/vectors/, computed from the protocol's own code with fixed
 * keys (RFC 8032 §7.1 seeds), fixed times and fixed ids, so two runs give the same bytes.
 * Each module checks its values against the RFC examples in rfc.ts and that every negative
 * case really fails in this implementation before returning it.
 * scripts/generate-vectors.ts writes them; protocol/test/vectors-generated.test.ts checks
 * that the committed files are exactly what this produces.
 */
import { b64uInvalidVectors, b64uVectors } from './base64url.js';
import { jcsInvalidVectors, jcsNumberVectors, jcsVectors } from './jcs.js';
import { ed25519InvalidVectors, ed25519Vectors, jwkVectors, keyInvalidVectors } from './keys.js';
import { merkleInvalidVectors, merkleVectors, rfc6962Vectors } from './merkle.js';
import { SERVICE_SEED, receiptInvalidVectors, receiptVectors } from './receipt.js';
import { recordInvalidVectors, recordVectors } from './records.js';

/** File name (in protocol/test/vectors/) to its content. */
export function generateVectors(): Record<string, unknown> {
  const records = recordVectors();
  const receipt = receiptVectors(records);
  const merkle = merkleVectors();
  return {
    'jcs.json': jcsVectors(),
    'jcs-numbers.json': jcsNumberVectors(),
    'jcs-invalid.json': jcsInvalidVectors(),
    'base64url.json': b64uVectors(),
    'base64url-invalid.json': b64uInvalidVectors(),
    'ed25519.json': ed25519Vectors(),
    'ed25519-invalid.json': ed25519InvalidVectors(),
    'keys-invalid.json': keyInvalidVectors(),
    'jwk.json': jwkVectors(SERVICE_SEED),
    'records.json': records,
    'records-invalid.json': recordInvalidVectors(records),
    'receipt.json': receipt,
    'receipt-invalid.json': receiptInvalidVectors(receipt),
    'merkle.json': merkle,
    'merkle-rfc6962.json': rfc6962Vectors(),
    'merkle-invalid.json': merkleInvalidVectors(merkle),
  };
}

/** The bytes of a vector file: JSON with two-space indentation and a final newline. */
export function vectorFileText(content: unknown): string {
  return `${JSON.stringify(content, null, 2)}\n`;
}
