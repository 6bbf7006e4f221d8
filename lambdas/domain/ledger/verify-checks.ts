/**
 * The checks of docs/PROTOCOL.md "Verify endpoint" as pure functions over stored data. Each
 * answers false on any mismatch or malformed input and never throws, so one damaged field
 * cannot turn a verification into a 500.
 */
import {
  chainHash,
  GENESIS,
  publicKeyFromRaw,
  sha256B64u,
  verifyReceipt,
  verifyRecordSignature,
  type Ed25519Jwk,
  type Receipt,
} from '@agent-ledger/protocol';
import type { OperationItem } from '../../store/ledger-items.js';
import type { StoredPayload } from './operation-evidence.js';
import { rowToRecord } from './operation-row.js';
import { receiptMatchesRow } from './receipt-builder.js';

function safely(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

/**
 * `signature`: the signature verifies over the signing input with the key agent_pubkey_kid
 * had (revoked and retired keys still verify past records). `registeredKey` is the key item's
 * public key when the key still exists (it must agree with the copy the row took at
 * submission); after the agent's deletion the row's copy is the key. A stored payload must
 * also still hash to payload_hash, since the signature covers the payload only through it;
 * an erased payload leaves the signature check as it is, and a missing one (neither stored
 * nor erased: destroyed in storage) fails it.
 */
export function signatureCheck(row: OperationItem, registeredKey: string | null, payload: StoredPayload): boolean {
  return safely(() => {
    if (registeredKey !== null && registeredKey !== row.agent_public_key) return false;
    if (!verifyRecordSignature(rowToRecord(row), publicKeyFromRaw(row.agent_public_key))) return false;
    if (payload.state === 'missing') return false;
    // The object holds the canonical payload bytes exactly as hashed at submission.
    return payload.state === 'erased' || sha256B64u(new TextEncoder().encode(payload.text)) === row.payload_hash;
  });
}

/**
 * `chain`: chain_hash recomputes from the row, and prev_chain_hash is the chain_hash of the
 * agent's operation with seq_no − 1 (GENESIS for seq_no 1).
 */
export function chainCheck(row: OperationItem, previous: OperationItem | null): boolean {
  return safely(() => {
    if (chainHash(row.prev_chain_hash, rowToRecord(row)) !== row.chain_hash) return false;
    if (row.seq_no === 1) return previous === null && row.prev_chain_hash === GENESIS;
    return (
      previous !== null &&
      previous.agent_id === row.agent_id &&
      previous.seq_no === row.seq_no - 1 &&
      previous.chain_hash === row.prev_chain_hash
    );
  });
}

/**
 * `receipt`: the stored receipt's hash recomputes and service_signature verifies with the key
 * service_kid names in the service JWKS, and the receipt restates this row (operation,
 * seq_no, chain_hash, queue message, received time), so a valid receipt of another
 * operation cannot stand in for this one's.
 */
export function receiptCheck(row: OperationItem, stored: unknown, jwks: readonly Ed25519Jwk[]): boolean {
  return safely(() => {
    if (stored === null || typeof stored !== 'object') return false;
    const receipt = stored as Receipt;
    return verifyReceipt(receipt, { keys: jwks }) && receiptMatchesRow(receipt, row);
  });
}
