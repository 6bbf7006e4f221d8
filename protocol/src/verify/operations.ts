/**
 * The checks of each `body.operations` element (docs/EXPORT.md, "What the verifier
 * checks"), and of the chain links between them: what POST /v1/operations/:id/verify does
 * on the server (docs/PROTOCOL.md "Verify endpoint"), made offline from the bundle alone.
 */
import { GENESIS, chainHash, payloadHash, verifyRecordSignature, type OperationRecord } from '../ledger/record.js';
import { canonicalize } from '../encoding/jcs.js';
import { operationProblem } from '../export/shape.js';
import { agentKeyIndex, kidProblem, type IndexedEpoch, type IndexedKey } from './material.js';
import type { ExportHeader, ExportOperation } from '../export/format.js';
import type { ReportBuilder } from './report.js';
import type { Jwk } from '../crypto/jwk.js';
import { verifyInclusionProof } from '../merkle/merkle.js';
import { verifyReceipt } from '../ledger/receipt.js';

/** What the operation checks look things up in. */
export type OperationContext = {
  report: ReportBuilder;
  header: ExportHeader | null;
  keys: Map<string, IndexedKey>;
  epochs: Map<string, IndexedEpoch>;
  jwks: { keys: readonly Jwk[] };
  /** whether `jwks` is the auditor's (options.jwks) rather than the bundle's own */
  trusted: boolean;
};

/** What the bundle-level checks need from the operations once they are all checked. */
export type OperationTally = {
  agents: Set<string>;
  proofs: number;
  payloads: number;
  omittedPayloads: number;
  /** service_kid of every receipt -> the first operation whose receipt names it */
  receiptKids: Map<string, number>;
};

/** Members the row restates from the record (docs/API.md §2.2 vs §2.1); subject and action apart. */
const SHARED_SCALARS = [
  'operation_id',
  'org_id',
  'agent_id',
  'operation_type',
  'issued_at',
  'ttl_ms',
  'nonce',
  'payload_hash',
  'prev_chain_hash',
  'agent_pubkey_kid',
  'signature',
] as const;

function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/** The first member in which the row does not restate the record, or null. */
function rowMismatch(op: ExportOperation): string | null {
  const row = op.row as unknown as Record<string, unknown>;
  const record = op.record as unknown as Record<string, unknown>;
  for (const f of SHARED_SCALARS) if (row[f] !== record[f]) return f;
  for (const f of ['subject', 'action'] as const) {
    // The row keeps them JSON-encoded (docs/API.md §2.2): equal when they decode to the same JSON.
    const same = safely(() => canonicalize(JSON.parse(op.row[f])) === canonicalize(op.record[f]), false);
    if (!same) return f;
  }
  return null;
}

function scopeProblem(op: ExportOperation, header: ExportHeader): string | null {
  const { row } = op;
  const q = header.query;
  if (row.org_id !== header.org_id) return `belongs to organization ${row.org_id}, not ${header.org_id}`;
  if (row.created_at < q.start_time || row.created_at >= q.end_time) return `created_at ${row.created_at} is outside [${q.start_time}, ${q.end_time})`;
  if (q.agent_id !== null && row.agent_id !== q.agent_id) return `agent ${row.agent_id} does not match the filter agent_id ${q.agent_id}`;
  if (q.operation_type !== null && row.operation_type !== q.operation_type) {
    return `operation_type ${row.operation_type} does not match the filter ${q.operation_type}`;
  }
  return null;
}

/** The first member in which the receipt does not restate the row (docs/API.md §2.3, docs/PROTOCOL.md "Receipt"). */
function receiptMismatch(op: ExportOperation): string | null {
  const { row, receipt } = op;
  const pairs: [string, unknown, unknown][] = [
    ['operation_id', receipt.operation_id, row.operation_id],
    ['org_id', receipt.org_id, row.org_id],
    ['agent_id', receipt.agent_id, row.agent_id],
    ['seq_no', receipt.seq_no, row.seq_no],
    ['chain_hash', receipt.chain_hash, row.chain_hash],
    ['server_received_at', receipt.server_received_at, row.created_at],
  ];
  const off = pairs.find(([, a, b]) => a !== b);
  return off === undefined ? null : off[0];
}

function inclusion(ctx: OperationContext, where: string, op: ExportOperation, tally: OperationTally): void {
  const { report } = ctx;
  const proof = op.proof;
  if (proof === undefined) return report.notCovered(where, 'inclusion', 'no epoch covers the operation yet');
  tally.proofs += 1;
  const indexed = ctx.epochs.get(proof.epoch_id);
  if (indexed === undefined) return report.fail(where, 'inclusion', `epoch ${proof.epoch_id} is not in verification_material.epochs`);
  indexed.used = true;
  const { epoch } = indexed;
  if (indexed.leaves.has(proof.leaf_index)) {
    return report.fail(where, 'inclusion', `leaf ${proof.leaf_index} of epoch ${epoch.epoch_id} is claimed by two operations`);
  }
  indexed.leaves.add(proof.leaf_index);
  // docs/PROTOCOL.md "Merkle epochs": covered by the epoch of its own window or, carried, a later one.
  if (!(op.row.created_at < epoch.end_time)) return report.fail(where, 'inclusion', `created after the window of epoch ${epoch.epoch_id} ended`);
  const ok = verifyInclusionProof(op.row.chain_hash, proof, { epoch_id: epoch.epoch_id, root_hash: epoch.root_hash, tree_size: epoch.leaf_count });
  report.check(where, 'inclusion', ok, `the proof does not lead from chain_hash to the root of epoch ${epoch.epoch_id} (RFC 9162 §2.1.3.2)`);
}

/**
 * Check one operation entry; returns the entry when its shape allowed the checks, else null
 * (the `operation` check then failed and names the problem).
 *
 * @example
 * const op = checkOperation(ctx, 12, bundle.body.operations[12], tally, previous);
 */
export function checkOperation(
  ctx: OperationContext,
  i: number,
  raw: unknown,
  tally: OperationTally,
  previous: ExportOperation | null,
): ExportOperation | null {
  const { report, header } = ctx;
  const at = `operations[${i}]`;
  const problem = operationProblem(raw);
  if (!report.check(at, 'operation', problem === null, problem ?? '')) return null;
  const op = raw as ExportOperation;
  const { row, record } = op;
  tally.agents.add(row.agent_id);
  if (header !== null) {
    const scope = scopeProblem(op, header);
    report.check(`${at}.scope`, 'scope', scope === null, scope ?? '');
  }
  if (previous !== null) {
    const p = previous.row;
    const after = row.created_at > p.created_at || (row.created_at === p.created_at && row.operation_id > p.operation_id);
    report.check(`${at}.order`, 'order', after, `does not come after ${p.operation_id} in (created_at, operation_id) order`);
  } else {
    report.pass('order');
  }
  const mismatch = rowMismatch(op);
  report.check(`${at}.row`, 'row', mismatch === null, `row.${mismatch ?? ''} differs from the signed record`);

  const asRecord = record as unknown as OperationRecord;
  const indexed = ctx.keys.get(agentKeyIndex(record.agent_id, record.agent_pubkey_kid));
  if (indexed === undefined) {
    report.fail(`${at}.signature`, 'signature', `agent ${record.agent_id} key ${record.agent_pubkey_kid} is not in verification_material.agent_keys`);
  } else {
    indexed.used = true;
    const ok = indexed.problem === null && verifyRecordSignature(asRecord, indexed.key.public_key);
    report.check(`${at}.signature`, 'signature', ok, `the signature does not verify over signing_input with key ${record.agent_pubkey_kid}`);
  }

  if (Object.hasOwn(op, 'payload') && op.payload_erased !== undefined) {
    report.fail(`${at}.payload`, 'payload', 'the operation is marked erased but carries a payload');
  } else if (op.payload_erased !== undefined) {
    // Erased by an owner: not a tampering; signature, chain, receipt and inclusion cover payload_hash only.
    const e = op.payload_erased;
    report.notCovered(`${at}.payload`, 'payload', `payload erased by ${e.by} at ${new Date(e.at).toISOString()}: ${e.reason}`);
  } else if (Object.hasOwn(op, 'payload')) {
    tally.payloads += 1;
    if (header !== null && !header.include_payloads) {
      report.fail(`${at}.payload`, 'payload', 'a payload is present although export.include_payloads is false');
    } else {
      const ok = safely(() => payloadHash(op.payload as OperationRecord['payload']) === record.payload_hash, false);
      report.check(`${at}.payload`, 'payload', ok, 'SHA-256 of the canonical payload is not payload_hash');
    }
  } else if (header !== null && !header.include_payloads) {
    tally.omittedPayloads += 1; // reported once for the whole bundle
  } else if (row.store_payload_key !== null && report.bundleVersion !== '1.0') {
    // Since 1.1 every erasure is marked (payload_erased), and the row names the stored copy:
    // a payload neither in the bundle nor marked erased is one the service could not read.
    report.fail(`${at}.payload`, 'payload', `the payload is neither in the bundle nor marked erased: its stored copy (${row.store_payload_key}) was destroyed`);
  } else {
    report.notCovered(`${at}.payload`, 'payload', 'the payload is not in the bundle (erased, or never stored)');
  }

  const recomputed = safely(() => chainHash(record.prev_chain_hash, asRecord), null);
  report.check(`${at}.chain_hash`, 'chain_hash', recomputed === row.chain_hash, 'chain_hash does not recompute from prev_chain_hash and the record');

  const kid = op.receipt.service_kid;
  if (!tally.receiptKids.has(kid)) tally.receiptKids.set(kid, i);
  const unknown = kidProblem(ctx.jwks, kid, ctx.trusted);
  report.check(`${at}.receipt`, 'receipt', unknown === null && verifyReceipt(op.receipt, ctx.jwks), unknown ?? 'receipt_hash does not recompute or service_signature does not verify with the JWKS');
  const off = receiptMismatch(op);
  report.check(`${at}.receipt_row`, 'receipt_row', off === null, `receipt.${off ?? ''} does not match the row`);

  inclusion(ctx, `${at}.inclusion`, op, tally);
  return op;
}

/**
 * The chain link of every operation (docs/PROTOCOL.md "Operation record"): prev_chain_hash is
 * the chain_hash of the same agent's seq_no − 1, or GENESIS for seq_no 1. A predecessor
 * that is not in the bundle (a filtered or time-bounded export) leaves the link not
 * covered; the same seq_no twice for one agent is a fork and fails.
 *
 * @example
 * checkChainLinks(report, operationsThatPassedTheirShapeCheck);
 */
export function checkChainLinks(report: ReportBuilder, ops: readonly (ExportOperation | null)[]): void {
  const bySeq = new Map<string, number>();
  ops.forEach((op, i) => {
    if (op === null) return;
    const id = `${op.row.agent_id}\u0000${op.row.seq_no}`;
    if (!bySeq.has(id)) bySeq.set(id, i);
  });
  ops.forEach((op, i) => {
    if (op === null) return;
    const where = `operations[${i}].chain_link`;
    const { agent_id, seq_no } = op.row;
    const first = bySeq.get(`${agent_id}\u0000${seq_no}`) as number;
    if (first !== i) return report.fail(where, 'chain_link', `agent ${agent_id} has seq_no ${seq_no} twice (also operations[${first}]): a fork`);
    if (seq_no < 1) return report.fail(where, 'chain_link', `seq_no ${seq_no} is below 1`);
    if (seq_no === 1) {
      return void report.check(where, 'chain_link', op.record.prev_chain_hash === GENESIS, 'seq_no 1 must have prev_chain_hash GENESIS');
    }
    const before = bySeq.get(`${agent_id}\u0000${seq_no - 1}`);
    if (before === undefined) return report.notCovered(where, 'chain_link', `seq_no ${seq_no - 1} of agent ${agent_id} is not in the bundle`);
    const prev = ops[before] as ExportOperation;
    report.check(where, 'chain_link', op.record.prev_chain_hash === prev.row.chain_hash, `prev_chain_hash is not the chain_hash of seq_no ${seq_no - 1} (operations[${before}])`);
  });
}
