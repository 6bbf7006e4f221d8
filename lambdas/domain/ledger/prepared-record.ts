/**
 * A submitted record with its canonical parts computed once (docs/ARCHITECTURE.md, Performance budget:
 * canonicalize once per request). The canonical payload bytes serve the size limit, the
 * payload hash and the stored object (the bytes are stored, so verify re-hashes exactly them); the canonical subject and action are what the row
 * stores as JSON-encoded strings (docs/API.md §2.2) and parse back to the signed values.
 */
import { canonicalBytes, canonicalize, CanonicalizationError, sha256B64u, type OperationRecord } from '@agent-ledger/protocol';
import { LedgerError } from '../../shared/errors.js';

/**
 * Bound on the canonical subject and on the action. They live in the table row (the payload
 * goes to S3), and a row must stay well inside DynamoDB's 400 KB item limit.
 */
export const MAX_DESCRIPTOR_BYTES = 32 * 1024;

export interface PreparedRecord {
  record: OperationRecord;
  payloadBytes: Uint8Array;
  /** b64u(H(payloadBytes)): what payload_hash must be (checked at step 5), and the object's name. */
  payloadDigest: string;
  subjectJson: string;
  actionJson: string;
}

const utf8 = new TextEncoder();

/** Check-order step 1 (request shape): a value JCS cannot represent (a lone surrogate) is VALIDATION_ERROR. */
export function prepareRecord(record: OperationRecord): PreparedRecord {
  try {
    const subjectJson = canonicalize(record.subject);
    const actionJson = canonicalize(record.action);
    for (const [field, json] of [['subject', subjectJson], ['action', actionJson]] as const) {
      if (utf8.encode(json).byteLength > MAX_DESCRIPTOR_BYTES) {
        throw new LedgerError('VALIDATION_ERROR', `body.${field}: canonical JSON exceeds ${MAX_DESCRIPTOR_BYTES} bytes; put bulk data in the payload`);
      }
    }
    const payloadBytes = canonicalBytes(record.payload);
    return { record, payloadBytes, payloadDigest: sha256B64u(payloadBytes), subjectJson, actionJson };
  } catch (error) {
    if (error instanceof CanonicalizationError) {
      throw new LedgerError('VALIDATION_ERROR', `body: ${error.message} (RFC 8785 canonical JSON required)`);
    }
    throw error;
  }
}
