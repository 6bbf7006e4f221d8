/**
 * The epoch log in export bundles (docs/CHECKPOINTS.md "In an export", "Verifying",
 * "Extending an earlier export"): a genuine bundle 1.1 verifies with its log; an epoch left
 * out of the log fails naming the missing index, a wrong predecessor root fails, a 1.0
 * bundle says the append-only checks were not possible; verifyExtends accepts a later export
 * and refuses one whose log rewrote or dropped an epoch, even with every signature made by
 * the genuine service key (the dishonest operator).
 */
import { describe, expect, it } from 'vitest';
import { b64uEncode, canonicalBytes, sha256, sign, verifyExportBundle, verifyExtends, type EpochLogEntry, type ExportBundle, type ExportLog } from '../../src/index.js';
import { base, exportOf, materialize, scenarioLog, scenarioLogEntries, type Scenario } from '../exportscenario.js';

const orgLog = scenarioLogEntries;
const exportedLog = async (s: Scenario, size: number, all: EpochLogEntry[]): Promise<ExportLog> => scenarioLog(s, size, all);

/** The bundle with `log` in it, re-signed by the service key (as the service, or a dishonest operator, would). */
function withLog(s: Scenario, log: ExportLog | undefined, version = '1.1'): ExportBundle {
  const bundle = materialize(s);
  bundle.body.bundle_version = version;
  if (log === undefined) delete bundle.body.verification_material.log;
  else bundle.body.verification_material.log = log;
  return resign(s, bundle);
}

function resign(s: Scenario, bundle: ExportBundle): ExportBundle {
  const digest = sha256(canonicalBytes(bundle.body));
  bundle.manifest = { body_sha256: b64uEncode(digest), service_kid: s.serviceKid, signature: b64uEncode(sign(s.serviceKey, digest)) };
  return bundle;
}

const failures = (r: ReturnType<typeof verifyExportBundle>) => r.findings.filter((f) => f.status === 'failed');

describe('the epoch log in a bundle', () => {
  it('a genuine 1.1 bundle verifies with its checkpoint, entries and sequence', async () => {
    const all = orgLog(base);
    const report = verifyExportBundle(withLog(base, await exportedLog(base, all.length, all)), { jwks: base.jwks });
    expect(failures(report)).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.checks.checkpoint.passed).toBe(2);
    expect(report.checks.log_entry.passed).toBeGreaterThanOrEqual(4);
    expect(report.checks.log_sequence.failed).toBe(0);
    expect(report.checks.log_sequence.passed).toBeGreaterThan(0);
  });

  it('a filtered export verifies too (an agent without operations in an epoch leaves it out of the bundle, not out of the log)', async () => {
    const s = exportOf({ agent_id: 'agent-gamma' });
    const all = orgLog(s);
    const report = verifyExportBundle(withLog(s, await exportedLog(s, all.length, all)), { jwks: s.jwks });
    expect(failures(report)).toEqual([]);
  });

  it('an epoch left out of the entries fails naming the missing index', async () => {
    const all = orgLog(base);
    const log = await exportedLog(base, all.length, all);
    log.entries = log.entries.filter((e) => e.epoch_index !== 1);
    const report = verifyExportBundle(withLog(base, log), { jwks: base.jwks });
    expect(report.valid).toBe(false);
    expect(failures(report)).toContainEqual(expect.objectContaining({ check: 'log_sequence', reason: expect.stringContaining('epoch index 1 is missing') }));
  });

  it('a log rebuilt without one epoch (re-signed checkpoint) still fails: the bundled epoch is not in it, and a later epoch names the wrong predecessor', async () => {
    const all = orgLog(base);
    const dropped = all.filter((e) => e.epoch_index !== 1).map((e, i) => ({ ...e, epoch_index: i }));
    const report = verifyExportBundle(withLog(base, await exportedLog(base, dropped.length, dropped)), { jwks: base.jwks });
    expect(report.valid).toBe(false);
    const reasons = failures(report).map((f) => `${f.where}: ${f.reason}`);
    expect(reasons.join('\n')).toMatch(/prev_root_hash is not the root of epoch index 0/);
  });

  it('a wrong prev_root_hash fails, even when the leaves and checkpoint were recomputed for it', async () => {
    const all = orgLog(base, (entries) => {
      entries[2]!.prev_root_hash = entries[0]!.root_hash;
    });
    const report = verifyExportBundle(withLog(base, await exportedLog(base, all.length, all)), { jwks: base.jwks });
    expect(failures(report)).toContainEqual(expect.objectContaining({ check: 'log_entry', where: 'verification_material.log.entries[2]', reason: expect.stringContaining('prev_root_hash is not the root of epoch index 1') }));
  });

  it('an entry that is not the leaf at its index, or a checkpoint by another key, fails', async () => {
    const all = orgLog(base);
    const log = await exportedLog(base, all.length, all);
    log.entries[1] = { ...log.entries[1]!, leaf_count: log.entries[1]!.leaf_count + 1 };
    expect(failures(verifyExportBundle(withLog(base, log), { jwks: base.jwks }))).toContainEqual(expect.objectContaining({ check: 'log_entry', reason: expect.stringContaining("is not the log's leaf at index 1") }));
    const good = await exportedLog(base, all.length, all);
    const other = { keys: [base.jwks.keys[1]!] };
    const report = verifyExportBundle(withLog(base, good), { jwks: other });
    expect(failures(report)).toContainEqual(expect.objectContaining({ check: 'checkpoint', reason: 'no signature by a known service key' }));
  });

  it('a 1.0 bundle verifies, and says the append-only checks were not possible', () => {
    const report = verifyExportBundle(withLog(base, undefined, '1.0'), { jwks: base.jwks });
    expect(report.valid).toBe(true);
    expect(report.findings).toContainEqual(expect.objectContaining({ check: 'checkpoint', status: 'not_covered', reason: expect.stringContaining('append-only checks') }));
  });
});

describe('verifyExtends (verify new.json --since old.json)', () => {
  const early = exportOf({ start_time: base.header.query.start_time, end_time: base.header.query.start_time + 2 * 60_000 });

  it('accepts a later export whose log extends the earlier one', async () => {
    const all = orgLog(base);
    const older = withLog(early, await exportedLog(early, 3, all));
    const newer = withLog(base, await exportedLog(base, all.length, all));
    const r = verifyExtends(older, newer, { jwks: base.jwks });
    expect(r.findings).toEqual([]);
    expect(r.valid).toBe(true);
    expect(r.sizes).toEqual({ older: 3, newer: all.length });
    expect(r.consistency_proof?.length).toBeGreaterThan(0);
    // The same export is an extension of itself.
    expect(verifyExtends(newer, newer, { jwks: base.jwks }).valid).toBe(true);
  });

  it('refuses a later export that rewrote an epoch both contain, each verifying on its own', async () => {
    const all = orgLog(base);
    const older = withLog(early, await exportedLog(early, 3, all));
    // The operator rewrites epoch 1's entry (its leaf count) and re-signs everything.
    const rewritten = orgLog(base, (entries) => {
      entries[1]!.leaf_count += 1;
    });
    const newer = withLog(base, await exportedLog(base, rewritten.length, rewritten));
    const r = verifyExtends(older, newer, { jwks: base.jwks });
    expect(r.valid).toBe(false);
    const text = r.findings.map((f) => `${f.where}: ${f.reason}`).join('\n');
    expect(text).toMatch(/epoch index 1 differs between the exports/);
    expect(text).toMatch(/no consistency between the older checkpoint \(size 3\)/);
  });

  it('refuses a later export whose log is shorter (an epoch dropped)', async () => {
    const all = orgLog(base);
    const older = withLog(base, await exportedLog(base, all.length, all));
    const newer = withLog(early, await exportedLog(early, 3, all));
    const r = verifyExtends(older, newer, { jwks: base.jwks });
    expect(r.valid).toBe(false);
    expect(r.findings).toContainEqual(expect.objectContaining({ reason: expect.stringContaining('epoch index 3 was dropped') }));
  });

  it('refuses when either export has no log (1.0)', async () => {
    const all = orgLog(base);
    const r = verifyExtends(withLog(early, undefined, '1.0'), withLog(base, await exportedLog(base, all.length, all)), { jwks: base.jwks });
    expect(r.valid).toBe(false);
    expect(r.findings).toContainEqual(expect.objectContaining({ where: 'older' }));
  });
});
