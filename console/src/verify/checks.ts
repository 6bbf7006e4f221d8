/**
 * Verifies one operation in the browser with the protocol package (its browser twins, which
 * Vite picks by the `browser` condition of protocol/package.json `imports`), from evidence fetched separately: the stored row and payload,
 * the agent's key, the predecessor's row, the signed receipt and the service's JWKS, the
 * inclusion proof against the epoch's own root, and the epoch's RFC 3161 token. Nothing here
 * takes the service's word for a verdict (docs/PROTOCOL.md; the checks of the Verify endpoint,
 * recomputed, plus the anchor imprint).
 */
import {
  GENESIS,
  recordOfStoredRow,
  SHA256_OID,
  b64Decode,
  b64uDecode,
  chainHash,
  payloadHash,
  readTimeStampToken,
  receiptHash,
  verifyInclusionProof,
  verifyRecordSignature,
  verifyWithJwks,
  receiptSigningInput,
  type InclusionProof,
  type Jwk,
  type OperationRecord,
  type Receipt,
  type StoredOperationRow,
} from '@agent-ledger/protocol';

export type CheckStatus = 'passed' | 'failed' | 'pending';

export interface Check {
  id: 'signature' | 'chain' | 'receipt' | 'inclusion' | 'anchor';
  label: string;
  status: CheckStatus;
  reason: string;
}

/** The stored row as GET /v1/operations/{id} and the audit query return it (docs/API.md §2.2). */
export type StoredRow = StoredOperationRow;

export interface Evidence {
  row: StoredRow;
  /** Absent when the payload was erased (docs/PROTOCOL.md: the signature still verifies), or destroyed. */
  payload?: Record<string, unknown> | string | null;
  hasPayload: boolean;
  /** The operation carries an owner's erasure mark (payload_erased). */
  erased: boolean;
  /** The agent's key named by agent_pubkey_kid, or null when the agent or key is gone. */
  publicKey: string | null;
  /** The agent's row at seq_no − 1 (null for seq_no 1, or when it could not be read). */
  previous: StoredRow | null;
  signedReceipt: Record<string, unknown> | null;
  jwks: { keys: Jwk[] };
  proof?: InclusionProof;
  epoch?: { epoch_id: string; root_hash: string; leaf_count: number };
  anchor?: { tsa_token: string; tsa_url: string; anchored_at: number } | null;
}

const pass = (id: Check['id'], label: string, reason: string): Check => ({ id, label, status: 'passed', reason });
const fail = (id: Check['id'], label: string, reason: string): Check => ({ id, label, status: 'failed', reason });
const pending = (id: Check['id'], label: string, reason: string): Check => ({ id, label, status: 'pending', reason });

function signatureCheck(e: Evidence, record: OperationRecord): Check {
  const label = 'Agent signature';
  if (e.hasPayload && payloadHash(e.payload ?? null) !== e.row.payload_hash) {
    return fail('signature', label, 'the stored payload does not hash to payload_hash: the payload was changed after signing');
  }
  if (!e.hasPayload && !e.erased) {
    return fail('signature', label, 'the payload is neither stored nor erased: its stored copy was deleted or damaged in storage');
  }
  if (e.publicKey === null) return fail('signature', label, `the agent has no key ${e.row.agent_pubkey_kid} to check against`);
  if (!verifyRecordSignature(record, e.publicKey)) {
    return fail('signature', label, `the Ed25519 signature does not verify with key ${e.row.agent_pubkey_kid} over the canonical record`);
  }
  const erased = e.hasPayload ? '' : ' (payload erased; it is bound through payload_hash)';
  return pass('signature', label, `Ed25519 signature verifies with key ${e.row.agent_pubkey_kid}${erased}`);
}

function chainCheck(e: Evidence, record: OperationRecord): Check {
  const label = 'Chain link';
  let recomputed: string;
  try {
    recomputed = chainHash(e.row.prev_chain_hash, record);
  } catch (error) {
    return fail('chain', label, `prev_chain_hash is malformed (${error instanceof Error ? error.message : String(error)})`);
  }
  if (recomputed !== e.row.chain_hash) return fail('chain', label, 'chain_hash does not recompute from prev_chain_hash and the record');
  if (e.row.seq_no === 1) {
    return e.row.prev_chain_hash === GENESIS
      ? pass('chain', label, 'first record of the agent: links to the genesis value, and chain_hash recomputes')
      : fail('chain', label, 'seq_no 1 must link to the genesis value');
  }
  if (e.previous === null) return fail('chain', label, `the agent's record seq_no ${e.row.seq_no - 1} could not be read`);
  if (e.previous.seq_no !== e.row.seq_no - 1 || e.previous.agent_id !== e.row.agent_id) {
    return fail('chain', label, `the predecessor given is not the agent's seq_no ${e.row.seq_no - 1}`);
  }
  if (e.previous.chain_hash !== e.row.prev_chain_hash) {
    return fail('chain', label, `prev_chain_hash differs from the chain_hash of seq_no ${e.previous.seq_no}`);
  }
  return pass('chain', label, `links to seq_no ${e.previous.seq_no} (${e.previous.operation_id}), and chain_hash recomputes`);
}

function receiptCheck(e: Evidence): Check {
  const label = 'Service receipt';
  const r = e.signedReceipt as Receipt | null;
  if (r === null) return fail('receipt', label, 'no signed receipt is stored for this operation (or it is not JSON)');
  let hash: string;
  try {
    hash = receiptHash(r);
  } catch (error) {
    return fail('receipt', label, `the receipt is malformed (${error instanceof Error ? error.message : String(error)})`);
  }
  if (hash !== r.receipt_hash) return fail('receipt', label, 'receipt_hash does not recompute: the receipt was altered after signing');
  if (!verifyWithJwks(e.jwks, r.service_kid, receiptSigningInput(r.receipt_hash), r.service_signature)) {
    return fail('receipt', label, `the service signature does not verify with JWKS key ${r.service_kid}`);
  }
  const mismatch = (['operation_id', 'org_id', 'agent_id', 'seq_no', 'chain_hash'] as const).find((name) => r[name] !== e.row[name]);
  if (mismatch) return fail('receipt', label, `the receipt's ${mismatch} differs from the operation's`);
  if (r.server_received_at !== e.row.created_at) return fail('receipt', label, "the receipt's server_received_at differs from the operation's created_at");
  return pass('receipt', label, `receipt_hash recomputes, the service signature verifies with JWKS key ${r.service_kid}, and it names this operation's seq_no and chain_hash`);
}

function inclusionCheck(e: Evidence): Check {
  const label = 'Merkle inclusion';
  if (!e.proof) return pending('inclusion', label, 'no epoch covers this operation yet (it is sealed into one once its window closes)');
  if (!e.epoch) return fail('inclusion', label, `epoch ${e.proof.epoch_id} could not be read`);
  const ok = verifyInclusionProof(e.row.chain_hash, e.proof, { epoch_id: e.epoch.epoch_id, root_hash: e.epoch.root_hash, tree_size: e.epoch.leaf_count });
  return ok
    ? pass('inclusion', label, `leaf ${e.proof.leaf_index} of ${e.proof.tree_size} hashes up to the root of epoch ${e.epoch.epoch_id}`)
    : fail('inclusion', label, `the proof does not lead from this operation to the root of epoch ${e.epoch.epoch_id}`);
}

function anchorCheck(e: Evidence): Check {
  const label = 'Epoch anchor (RFC 3161)';
  if (!e.epoch) return pending('anchor', label, 'no epoch yet');
  if (!e.anchor) return pending('anchor', label, 'the epoch has no time-stamp (no TSA configured, or not anchored yet)');
  try {
    const info = readTimeStampToken(b64Decode(e.anchor.tsa_token));
    if (info.hash_algorithm !== SHA256_OID) return fail('anchor', label, `the token's imprint uses ${info.hash_algorithm}, not SHA-256`);
    const root = b64uDecode(e.epoch.root_hash);
    const same = info.hashed_message.length === root.length && info.hashed_message.every((byte, i) => byte === root[i]);
    if (!same) return fail('anchor', label, "the token's message imprint is not the epoch's Merkle root");
    return pass('anchor', label, `the time-stamp of ${new Date(info.gen_time).toISOString()} covers the epoch's root (imprint; the TSA certificate chain is checked by agent-ledger verify on an export)`);
  } catch (error) {
    return fail('anchor', label, `the time-stamp token does not parse (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** Every check, in the order of docs/PROTOCOL.md "Verify endpoint", then the anchor. */
export function verifyEvidence(e: Evidence): Check[] {
  let record: OperationRecord;
  try {
    record = recordOfStoredRow(e.row, e.hasPayload ? (e.payload ?? null) : null);
  } catch {
    const broken = 'the stored subject or action is not JSON';
    return [fail('signature', 'Agent signature', broken), fail('chain', 'Chain link', broken), receiptCheck(e), inclusionCheck(e), anchorCheck(e)];
  }
  return [signatureCheck(e, record), chainCheck(e, record), receiptCheck(e), inclusionCheck(e), anchorCheck(e)];
}
