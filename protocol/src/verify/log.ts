/**
 * Checks of `verification_material.log` (bundle 1.1; docs/CHECKPOINTS.md "Verifying"): the
 * checkpoint is the service's and of this organization, the leaves reproduce its root,
 * every entry is the leaf at its index (hash and inclusion path), the entries follow each
 * other without a gap and each names its predecessor's root, they cover the export's range
 * from the epoch before it to the epoch after it, and every epoch of the bundle is one of
 * them. A missing epoch therefore shows as a missing index, named.
 */
import { b64uDecode, b64uEncode } from '../encoding/base64url.js';
import type { ExportBundleBody, ExportEpochRecord, ExportHeader, ExportLog, ExportLogEntry } from '../export/format.js';
import { EPOCH_ENTRY_SHAPE, LOG_ENTRY_SHAPE, LOG_SHAPE, isHashB64u, shapeProblem } from '../export/shape.js';
import type { Jwk } from '../crypto/jwk.js';
import { merkleRoot, verifyInclusion } from '../merkle/merkle.js';
import { verifyCheckpoint, type Checkpoint } from '../tlog/checkpoint.js';
import { GENESIS_PREV_ROOT, logEntryHash, logLeafHash, logOrigin } from '../tlog/entry.js';
import type { ReportBuilder } from './report.js';

const WHERE = 'verification_material.log';

/** The log's checkpoint and leaves once they check out: what `verify --since` compares. */
export type CheckedLog = { checkpoint: Checkpoint; leaves: string[]; entries: ExportLogEntry[] };

function overlaps(e: { start_time: number; end_time: number }, q: ExportHeader['query']): boolean {
  return e.start_time < q.end_time && e.end_time > q.start_time;
}

function entryProblem(raw: unknown, orgId: string, leaves: readonly string[], checkpoint: Checkpoint): string | null {
  const problem = shapeProblem(raw, LOG_ENTRY_SHAPE);
  if (problem !== null) return problem;
  const e = raw as ExportLogEntry;
  if (e.org_id !== orgId) return `belongs to organization ${e.org_id}`;
  if (!isHashB64u(e.root_hash) || !isHashB64u(e.prev_root_hash)) return 'root_hash and prev_root_hash must be 32 bytes of base64url';
  if (e.epoch_index < 0 || e.epoch_index >= leaves.length) return `epoch_index ${e.epoch_index} is outside the log of size ${leaves.length}`;
  const hash = logEntryHash(e);
  if (hash !== leaves[e.epoch_index]) return `is not the log's leaf at index ${e.epoch_index} (entry hash ${hash})`;
  if (!e.audit_path.every(isHashB64u)) return 'audit_path must hold 32-byte base64url hashes';
  const included = verifyInclusion(logLeafHash(hash), e.epoch_index, checkpoint.size, e.audit_path.map((p) => b64uDecode(p)), b64uDecode(checkpoint.root_hash));
  return included ? null : "its inclusion path does not lead to the checkpoint's root";
}

/**
 * Check the log of a 1.1 bundle. Returns what checked out for {@link verifyExtends}, or
 * null when the log is absent, empty or broken.
 *
 * @example
 * const log = checkEpochLog(report, body, header, jwks);
 */
export function checkEpochLog(report: ReportBuilder, body: ExportBundleBody, header: ExportHeader | null, jwks: { keys: readonly Jwk[] }): CheckedLog | null {
  if (body.bundle_version === '1.0' || !Object.hasOwn(body.verification_material, 'log')) {
    report.notCovered(WHERE, 'checkpoint', `bundle ${body.bundle_version} carries no epoch log: append-only checks (epoch indexes, checkpoints, verify --since) were not possible`);
    return null;
  }
  if (header === null) return null;
  const raw = body.verification_material.log;
  const problem = shapeProblem(raw, LOG_SHAPE);
  if (problem !== null) {
    report.fail(WHERE, 'checkpoint', problem);
    return null;
  }
  const log = raw as ExportLog;
  const epochs = body.verification_material.epochs as unknown[];
  if (log.checkpoint === null) {
    const empty = log.leaves.length === 0 && log.entries.length === 0;
    if (!report.check(WHERE, 'checkpoint', empty, 'a log without a checkpoint must have no leaves and no entries')) return null;
    report.notCovered(WHERE, 'checkpoint', 'the organization had no epoch in its log when this was exported (epochs sealed before the log existed are not in it)');
    if (epochs.length > 0) report.notCovered(`${WHERE}.entries`, 'log_sequence', 'the epochs of this bundle were sealed before the log existed', epochs.length);
    return null;
  }
  const verdict = verifyCheckpoint(log.checkpoint, jwks, logOrigin(header.org_id));
  if (!report.check(`${WHERE}.checkpoint`, 'checkpoint', verdict.ok, verdict.ok ? '' : verdict.reason) || !verdict.ok) return null;
  const checkpoint = verdict.checkpoint;
  const leavesOk = log.leaves.length === checkpoint.size && log.leaves.every(isHashB64u);
  const rootOk = leavesOk && checkpoint.size > 0 && b64uEncode(merkleRoot(log.leaves.map(logLeafHash))) === checkpoint.root_hash;
  const leafReason = !leavesOk ? `the log holds ${log.leaves.length} leaves, the checkpoint says ${checkpoint.size}` : "the leaves do not reproduce the checkpoint's root hash";
  if (!report.check(`${WHERE}.leaves`, 'checkpoint', rootOk, leafReason)) return null;

  // Each entry on its own, then as a sequence.
  const good: ExportLogEntry[] = [];
  log.entries.forEach((e, i) => {
    const reason = entryProblem(e, header.org_id, log.leaves, checkpoint);
    if (report.check(`${WHERE}.entries[${i}]`, 'log_entry', reason === null, reason ?? '')) good.push(e);
  });
  if (good.length !== log.entries.length) return null;
  checkSequence(report, good, checkpoint.size, header.query);
  checkBundledEpochs(report, epochs, good, header);
  return { checkpoint, leaves: log.leaves, entries: good };
}

function checkSequence(report: ReportBuilder, entries: readonly ExportLogEntry[], size: number, query: ExportHeader['query']): void {
  const where = `${WHERE}.entries`;
  if (entries.length === 0) {
    report.fail(where, 'log_sequence', `the log has ${size} entries but the bundle shows none of them around the range`);
    return;
  }
  entries.forEach((e, i) => {
    if (i === 0) {
      const ok = e.epoch_index > 0 || e.prev_root_hash === GENESIS_PREV_ROOT;
      report.check(`${where}[0]`, 'log_entry', ok, 'the entry at index 0 must name the genesis prev_root_hash (32 zero bytes)');
      return;
    }
    const before = entries[i - 1] as ExportLogEntry;
    if (e.epoch_index !== before.epoch_index + 1) {
      const missing = e.epoch_index > before.epoch_index + 1 ? `epoch index ${before.epoch_index + 1}${e.epoch_index > before.epoch_index + 2 ? ` to ${e.epoch_index - 1}` : ''} is missing` : 'indexes are not ascending';
      report.fail(`${where}[${i}]`, 'log_sequence', `${missing} (after index ${before.epoch_index}, epoch ${before.epoch_id})`);
      return;
    }
    const linked = e.prev_root_hash === before.root_hash && e.start_time >= before.end_time;
    report.check(`${where}[${i}]`, 'log_entry', linked, `prev_root_hash is not the root of epoch index ${before.epoch_index}, or the windows overlap`);
  });
  // The range is covered from the epoch before it (or index 0) to the epoch after it (or the last index).
  const first = entries[0] as ExportLogEntry;
  const last = entries[entries.length - 1] as ExportLogEntry;
  const startCovered = first.epoch_index === 0 || first.end_time <= query.start_time;
  report.check(`${where}[0]`, 'log_sequence', startCovered, `epoch index ${first.epoch_index - 1}, before the first entry, is missing: the entries start inside the export's range`);
  const endCovered = last.epoch_index === size - 1 || last.start_time >= query.end_time;
  report.check(`${where}[${entries.length - 1}]`, 'log_sequence', endCovered, `epoch index ${last.epoch_index + 1}, after the last entry, is missing: the entries end inside the export's range`);
}

function sameEpoch(a: ExportEpochRecord, e: ExportLogEntry): boolean {
  return a.start_time === e.start_time && a.end_time === e.end_time && a.root_hash === e.root_hash && a.leaf_count === e.leaf_count;
}

function checkBundledEpochs(report: ReportBuilder, epochs: readonly unknown[], entries: readonly ExportLogEntry[], header: ExportHeader): void {
  const byId = new Map(entries.map((e) => [e.epoch_id, e]));
  const bundled = new Set<string>();
  const firstIndexZero = entries[0]?.epoch_index === 0 ? entries[0] : undefined;
  epochs.forEach((raw, i) => {
    if (shapeProblem(raw, EPOCH_ENTRY_SHAPE) !== null) return; // reported by the epoch check
    const epoch = (raw as { epoch: ExportEpochRecord }).epoch;
    bundled.add(epoch.epoch_id);
    const entry = byId.get(epoch.epoch_id);
    const where = `epochs[${i}]`;
    if (entry !== undefined) {
      report.check(where, 'log_sequence', sameEpoch(epoch, entry), `is not the epoch the log holds at index ${entry.epoch_index}`);
    } else if (firstIndexZero !== undefined && epoch.end_time <= firstIndexZero.start_time) {
      report.notCovered(where, 'log_sequence', 'sealed before the log existed (before its index 0)');
    } else {
      report.fail(where, 'log_sequence', `epoch ${epoch.epoch_id} is not in the log's entries for the range`);
    }
  });
  // Unfiltered, an epoch wholly inside the range has all its operations in the bundle.
  if (header.query.agent_id !== null || header.query.operation_type !== null) return;
  entries.forEach((e, i) => {
    const inside = e.start_time >= header.query.start_time && e.end_time <= header.query.end_time;
    if (inside && overlaps(e, header.query)) {
      report.check(`${WHERE}.entries[${i}]`, 'log_sequence', bundled.has(e.epoch_id), `epoch index ${e.epoch_index} (${e.epoch_id}) lies inside the range but the bundle has none of its operations`);
    }
  });
}
