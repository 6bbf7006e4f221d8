/**
 * The report of verifyExportBundle (docs/EXPORT.md, "What the verifier checks"): a tally of
 * every check by name, and a finding, with its place in the bundle, for every check that
 * failed or could not be made from what the bundle holds ("not covered"). A file the verifier
 * cannot read at all within its limits (nested deeper than MAX_BUNDLE_DEPTH) is neither:
 * `cannot_process` says why and no check is made, so "could not read" is never reported as
 * "tampered".
 */
import type { ExportHeader } from '../export/format.js';
import type { PinStatus } from '../keys/pins.js';

/**
 * How one agent's keys compare with the auditor's pins (docs/EXPORT.md "Pinned agent keys"):
 * the keys that signed its records in the bundle, by RFC 7638 thumbprint.
 */
export type AgentKeyReport = { agent_id: string; pin: PinStatus; keys: string[]; unpinned_keys: string[] };

/** A key that signed records of the bundle without a proof of possession, and why (verify/possession.ts). */
export type UnprovenKey = { agent_id: string; kid: string; reason: string };

/** The checks, in docs/EXPORT.md order. */
export const EXPORT_CHECKS = [
  'bundle',
  'canonical',
  'manifest_digest',
  'manifest_signature',
  'summary',
  'service_key',
  'agent_key',
  'epoch',
  'anchor',
  'anchor_signature',
  'anchor_time',
  'operation',
  'scope',
  'order',
  'row',
  'signature',
  'payload',
  'chain_hash',
  'chain_link',
  'receipt',
  'receipt_row',
  'inclusion',
  'chain_complete',
  'epoch_complete',
  // The organization's epoch log (docs/CHECKPOINTS.md "Verifying"), bundle 1.1.
  'checkpoint',
  'log_entry',
  'log_sequence',
  // The organization's key history and the auditor's pins (docs/EXPORT.md "Key history"), bundle 1.2.
  'key_event',
  'key_log',
  'key_window',
  'key_pin',
  // Whether each signing key's registration proved possession (docs/PROTOCOL.md "Proof of possession").
  'key_possession',
] as const;

export type ExportCheckName = (typeof EXPORT_CHECKS)[number];

/** How often a check passed, failed, or could not be made. */
export type ExportCheckTally = { passed: number; failed: number; not_covered: number };

/** A check that did not pass, and where: e.g. `operations[12].signature`, `epochs[3].anchor`. */
export type ExportFinding = {
  where: string;
  check: ExportCheckName;
  status: 'failed' | 'not_covered';
  reason: string;
};

export type ExportVerificationReport = {
  /** true when no check failed (checks not covered do not count against it) and the file could be processed */
  valid: boolean;
  /**
   * null when the file was processed; otherwise why it could not be, e.g. `cannot process:
   * nesting deeper than 68 levels at $.body.operations[0]…`. Then no check ran (every tally
   * is 0) and `valid` is false: the bundle was not shown to be changed, nor to be intact.
   */
  cannot_process: string | null;
  /** which JWKS the manifest and receipt signatures were checked against */
  trust: 'trusted_jwks' | 'bundled_jwks';
  bundle_version: string | null;
  /** body.export when it is well-formed */
  export: ExportHeader | null;
  counts: { operations: number; agents: number; agent_keys: number; epochs: number; anchored_epochs: number };
  totals: ExportCheckTally;
  checks: Record<ExportCheckName, ExportCheckTally>;
  /** every failed and not-covered check, in the order they were made */
  findings: ExportFinding[];
  /** each agent whose records the bundle holds, by agent_id: pinned, unpinned or mismatched */
  agents: AgentKeyReport[];
  /** each key that signed records of the bundle but whose possession was not proven, in agent_keys order */
  unproven_keys: UnprovenKey[];
};

/**
 * Collects check outcomes into an {@link ExportVerificationReport}.
 *
 * @example
 * const r = new ReportBuilder('bundled_jwks');
 * r.check('operations[0].signature', 'signature', false, 'does not verify');
 * r.build().valid; // false
 */
export class ReportBuilder {
  private readonly tallies = Object.fromEntries(
    EXPORT_CHECKS.map((c) => [c, { passed: 0, failed: 0, not_covered: 0 }]),
  ) as Record<ExportCheckName, ExportCheckTally>;
  private readonly findings: ExportFinding[] = [];
  bundleVersion: string | null = null;
  header: ExportHeader | null = null;
  counts = { operations: 0, agents: 0, agent_keys: 0, epochs: 0, anchored_epochs: 0 };
  agents: AgentKeyReport[] = [];
  unprovenKeys: UnprovenKey[] = [];
  private unprocessable: string | null = null;

  constructor(private readonly trust: ExportVerificationReport['trust']) {}

  pass(check: ExportCheckName): void {
    this.tallies[check].passed += 1;
  }

  fail(where: string, check: ExportCheckName, reason: string): void {
    this.tallies[check].failed += 1;
    this.findings.push({ where, check, status: 'failed', reason });
  }

  /** `count` checks that could not be made, reported once (e.g. every payload left out). */
  notCovered(where: string, check: ExportCheckName, reason: string, count = 1): void {
    this.tallies[check].not_covered += count;
    this.findings.push({ where, check, status: 'not_covered', reason });
  }

  /** The file cannot be processed at all (no check is made): `reason` says why. */
  cannotProcess(reason: string): void {
    this.unprocessable = `cannot process: ${reason}`;
  }

  /** Pass when `ok`, else fail with `reason`. */
  check(where: string, check: ExportCheckName, ok: boolean, reason: string): boolean {
    if (ok) this.pass(check);
    else this.fail(where, check, reason);
    return ok;
  }

  build(): ExportVerificationReport {
    const totals = { passed: 0, failed: 0, not_covered: 0 };
    for (const t of Object.values(this.tallies)) {
      totals.passed += t.passed;
      totals.failed += t.failed;
      totals.not_covered += t.not_covered;
    }
    return {
      valid: totals.failed === 0 && this.unprocessable === null,
      cannot_process: this.unprocessable,
      trust: this.trust,
      bundle_version: this.bundleVersion,
      export: this.header,
      counts: { ...this.counts },
      totals,
      checks: structuredClone(this.tallies),
      findings: [...this.findings],
      agents: this.agents.map((a) => ({ ...a, keys: [...a.keys], unpinned_keys: [...a.unpinned_keys] })),
      unproven_keys: this.unprovenKeys.map((k) => ({ ...k })),
    };
  }
}
