/**
 * Completeness (docs/EXPORT.md "Completeness"): an export must not only hold genuine
 * operations, it must hold all of them. The other checks prove that what is there is
 * genuine; these prove that nothing between what is there was left out:
 *
 * - `chain_complete`: without an operation_type filter, each agent's operations in the
 *   bundle are every seq_no from its first to its last one in range. A record left out of
 *   the middle of a chain, even with the manifest re-signed by the service key, leaves a
 *   hole the bundle itself shows (seq_no 10 and 12 without 11).
 * - `epoch_complete`: without any filter, every epoch whose window lies inside the query
 *   range has all `leaf_count` of its leaves claimed by an operation of the bundle. The
 *   signed root fixes leaf_count, so an operation left out is a missing leaf index.
 *
 * A filter makes gaps legitimate (an operation_type filter leaves out other types, an
 * agent_id filter other agents' leaves): those checks are then "not covered", once, at the
 * filter that turned them off.
 */
import type { ExportHeader, ExportOperation } from '../export/format.js';
import type { IndexedEpoch } from './material.js';
import type { ReportBuilder } from './report.js';

/** `[a, b]` as "a" or "a to b". */
const span = (a: number, b: number): string => (a === b ? String(a) : `${a} to ${b}`);

/**
 * Check that each agent's chain has no hole between its first and last seq_no in the bundle.
 *
 * @example
 * checkChainCompleteness(report, header, operationsThatPassedTheirShapeCheck);
 */
export function checkChainCompleteness(report: ReportBuilder, header: ExportHeader, ops: readonly (ExportOperation | null)[]): void {
  if (header.query.operation_type !== null) {
    report.notCovered('export.query.operation_type', 'chain_complete', `the operation_type filter (${header.query.operation_type}) leaves out other operations of each chain, so gaps in seq_no are expected and chains are not checked for completeness`);
    return;
  }
  // agent -> seq_no -> index of the operation in the bundle
  const byAgent = new Map<string, Map<number, number>>();
  ops.forEach((op, i) => {
    if (op === null || !Number.isSafeInteger(op.row.seq_no)) return;
    const seqs = byAgent.get(op.row.agent_id) ?? new Map<number, number>();
    if (!seqs.has(op.row.seq_no)) seqs.set(op.row.seq_no, i);
    byAgent.set(op.row.agent_id, seqs);
  });
  const agents = [...byAgent.keys()].sort();
  for (const agent of agents) {
    const seqs = byAgent.get(agent) as Map<number, number>;
    const sorted = [...seqs.keys()].sort((a, b) => a - b);
    const holes: string[] = [];
    for (let k = 1; k < sorted.length; k++) {
      const before = sorted[k - 1] as number;
      const after = sorted[k] as number;
      if (after - before > 1) {
        holes.push(`seq_no ${span(before + 1, after - 1)} missing between seq_no ${before} (operations[${seqs.get(before)}]) and seq_no ${after} (operations[${seqs.get(after)}])`);
      }
    }
    report.check(`chains[${JSON.stringify(agent)}]`, 'chain_complete', holes.length === 0, `agent ${agent}: ${holes.join('; ')}`);
  }
}

/**
 * Check that every epoch inside the query range has all its leaves in the bundle.
 *
 * The one exception is the service's carrying rule (docs/PROTOCOL.md "Merkle epochs"): an
 * operation whose write landed in an already sealed window is a leaf of a later epoch, and
 * leaves are ordered by created_at, so it comes first. An epoch that starts less than one
 * window length after the range start may therefore begin with leaves created before the
 * range; for that epoch alone, missing leaves that are exactly its first ones are "not
 * covered" instead of failed.
 *
 * @example
 * checkEpochCompleteness(report, header, epochsIndexedAndClaimedByTheProofs);
 */
export function checkEpochCompleteness(report: ReportBuilder, header: ExportHeader, epochs: ReadonlyMap<string, IndexedEpoch>): void {
  const { query } = header;
  if (query.operation_type !== null || query.agent_id !== null) {
    const filter = query.operation_type !== null ? 'operation_type' : 'agent_id';
    report.notCovered(`export.query.${filter}`, 'epoch_complete', `the ${filter} filter leaves out other operations of each epoch, so epochs are not checked for completeness (leaf_count)`);
    return;
  }
  for (const e of epochs.values()) {
    if (e.problem !== null || e.epoch === undefined) continue; // the epoch check already failed
    const { epoch } = e;
    if (epoch.start_time < query.start_time || epoch.end_time > query.end_time) continue; // not wholly inside the range
    const where = `epochs[${e.index}]`;
    const held = [...e.leaves].filter((leaf) => leaf >= 0 && leaf < epoch.leaf_count);
    const absent = epoch.leaf_count - held.length;
    if (absent === 0) {
      report.pass('epoch_complete');
      continue;
    }
    const windowLength = epoch.end_time - epoch.start_time;
    const onlyFirstLeaves = held.every((leaf) => leaf >= absent);
    if (onlyFirstLeaves && epoch.start_time - windowLength < query.start_time) {
      report.notCovered(where, 'epoch_complete', `leaf_index ${span(0, absent - 1)} of epoch ${epoch.epoch_id} are not in the bundle: operations carried into it from before the range start, or left out`);
      continue;
    }
    const missing: number[] = [];
    for (let leaf = 0; leaf < epoch.leaf_count && missing.length <= 20; leaf++) if (!e.leaves.has(leaf)) missing.push(leaf);
    const shown = missing.length > 20 ? `${missing.slice(0, 20).join(', ')}, ...` : missing.join(', ');
    report.fail(where, 'epoch_complete', `epoch ${epoch.epoch_id} has leaf_count ${epoch.leaf_count} but the bundle holds ${held.length} of its leaves (missing leaf_index ${shown})`);
  }
}
