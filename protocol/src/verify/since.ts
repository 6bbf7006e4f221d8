/**
 * `agent-ledger verify new.json --since old.json` (docs/CHECKPOINTS.md "Extending an earlier
 * export"): the newer export's epoch log extends the older one's. Both bundles must verify
 * on their own and carry a checkpoint of the same organization's log; then the older
 * checkpoint's size is at most the newer one's, an RFC 9162 consistency proof between the
 * two checkpoints, computed from the newer bundle's leaves, verifies against both roots, and
 * every epoch the older export shows is, byte for byte, the entry the newer log holds at its
 * index. A rewritten or dropped epoch fails, named by its index. The newer export's key
 * history (bundle 1.2) must extend the older one's event by event: an agent whose key was
 * replaced, or whose key event was dropped, fails, named (docs/EXPORT.md "Key history").
 */
import { b64uDecode, b64uEncode } from '../encoding/base64url.js';
import { consistencyProof, verifyConsistency } from '../merkle/consistency.js';
import { logEntryHash, logLeafHash } from '../tlog/entry.js';
import type { CheckedLog } from './log.js';
import { GENESIS_KEY_EVENT, keyEventHash, type KeyEvent } from '../keys/event.js';
import { verifyExportBundleAndLog, type VerifyExportOptions } from './bundle.js';
import type { ExportVerificationReport } from './report.js';

/** One finding of the comparison: where (which bundle's part) and why. */
export type ExtensionFinding = { where: string; reason: string };

export type ExtensionReport = {
  /** true when both bundles verify and the newer log extends the older one */
  valid: boolean;
  older: ExportVerificationReport;
  newer: ExportVerificationReport;
  /** sizes of the two checkpoints, when both were readable */
  sizes: { older: number; newer: number } | null;
  /** b64u RFC 9162 consistency proof from the older size to the newer one, as checked */
  consistency_proof: string[] | null;
  findings: ExtensionFinding[];
};

function compare(older: CheckedLog, newer: CheckedLog, findings: ExtensionFinding[]): string[] | null {
  const m = older.checkpoint.size;
  const n = newer.checkpoint.size;
  if (older.checkpoint.origin !== newer.checkpoint.origin) {
    findings.push({ where: 'checkpoint', reason: `the exports are of different logs (${older.checkpoint.origin}, ${newer.checkpoint.origin})` });
    return null;
  }
  if (m > n) {
    findings.push({ where: 'checkpoint', reason: `the newer log has ${n} epochs, the older one ${m}: ${m - n === 1 ? `epoch index ${n} was` : `epoch indexes ${n} to ${m - 1} were`} dropped` });
    return null;
  }
  // Name the first rewritten index: the leaves the two exports share must be the same.
  const rewritten = older.leaves.findIndex((leaf, i) => newer.leaves[i] !== leaf);
  if (rewritten >= 0) findings.push({ where: `log.leaves[${rewritten}]`, reason: `epoch index ${rewritten} differs between the exports: history was rewritten` });
  for (const entry of older.entries) {
    if (logEntryHash(entry) !== newer.leaves[entry.epoch_index]) {
      findings.push({ where: `older log.entries, index ${entry.epoch_index}`, reason: `epoch ${entry.epoch_id} (index ${entry.epoch_index}) is not in the newer log as the older export shows it` });
    }
  }
  const leaves = newer.leaves.map(logLeafHash);
  const proof = consistencyProof(leaves, m);
  const consistent = verifyConsistency(m, n, proof, b64uDecode(older.checkpoint.root_hash), b64uDecode(newer.checkpoint.root_hash));
  if (!consistent) findings.push({ where: 'checkpoint', reason: `no consistency between the older checkpoint (size ${m}) and the newer one (size ${n}): the newer log does not extend the older` });
  return proof.map(b64uEncode);
}

/** The newer key history starts with every event of the older one; each difference names its agent. */
function compareKeys(older: readonly KeyEvent[] | null, newer: readonly KeyEvent[] | null, findings: ExtensionFinding[]): void {
  if (older === null) return;
  if (newer === null) {
    findings.push({ where: 'newer', reason: 'the older export carries a key history and the newer one none that checks out: the key history cannot be shown to extend' });
    return;
  }
  const agents = new Set<string>();
  // After the first difference every later hash differs through the chain: name only the
  // agents whose own events differ.
  const content = (e: KeyEvent): string => keyEventHash({ ...e, prev_event_hash: GENESIS_KEY_EVENT });
  older.forEach((event, i) => {
    const now = newer[i];
    if (now !== undefined && keyEventHash(now) === keyEventHash(event)) return;
    if (now !== undefined && i > 0 && content(now) === content(event) && agents.size > 0) return;
    if (agents.has(event.agent_id)) return;
    agents.add(event.agent_id);
    const what = now === undefined ? 'is missing from the newer export' : `is, in the newer export, ${now.event} of key ${now.kid} of agent ${now.agent_id} (thumbprint ${now.thumbprint})`;
    findings.push({
      where: `log.key_events[${i}]`,
      reason: `the key history of agent ${event.agent_id} in the newer export is not an extension of the older one: key event ${i} (${event.event} of key ${event.kid}, thumbprint ${event.thumbprint}) ${what}`,
    });
  });
}

/**
 * Verify `newer` on its own, `older` on its own, and that `newer`'s epoch log extends
 * `older`'s. Never throws.
 *
 * @example
 * const r = verifyExtends(await readFile('old.json'), await readFile('new.json'), { jwks });
 * if (!r.valid) for (const f of r.findings) console.log(f.where, f.reason);
 */
export function verifyExtends(older: unknown, newer: unknown, options: VerifyExportOptions = {}): ExtensionReport {
  const a = verifyExportBundleAndLog(older, options);
  const b = verifyExportBundleAndLog(newer, options);
  const findings: ExtensionFinding[] = [];
  if (!a.report.valid) findings.push({ where: 'older', reason: 'the older export does not verify on its own' });
  if (!b.report.valid) findings.push({ where: 'newer', reason: 'the newer export does not verify on its own' });
  if (a.report.export !== null && b.report.export !== null && a.report.export.org_id !== b.report.export.org_id) {
    findings.push({ where: 'export.org_id', reason: 'the exports are of different organizations' });
  }
  for (const [name, side] of [['older', a], ['newer', b]] as const) {
    if (side.log === null) findings.push({ where: name, reason: `the ${name} export carries no checked epoch log (bundle 1.0, an empty log, or a log that failed its checks)` });
  }
  const proof = a.log !== null && b.log !== null ? compare(a.log, b.log, findings) : null;
  compareKeys(a.keyEvents, b.keyEvents, findings);
  return {
    valid: findings.length === 0,
    older: a.report,
    newer: b.report,
    sizes: a.log !== null && b.log !== null ? { older: a.log.checkpoint.size, newer: b.log.checkpoint.size } : null,
    consistency_proof: proof,
    findings,
  };
}
