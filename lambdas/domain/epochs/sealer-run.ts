/** What one sealer run is given and what it reports (run-sealer.ts runs it, run-follow-ups.ts does its second half). */
import type { Signer, TimestampAuthority } from '../ports.js';

export interface SealerRunOptions {
  /** The instant windows are judged against (the run's start). */
  now: number;
  epochMs: number;
  graceMs: number;
  /** No new work starts after this instant (Unix ms). */
  deadline: number;
  /** Organization leases expire then: after the invocation is certainly over. */
  leaseUntil: number;
  /** This run's identity for the leases (the Lambda request id). */
  holder: string;
  /** Wait between fencing an organization and reading its windows (LEDGER_EPOCH_SETTLE_MS). */
  settleMs: number;
  tsa: TimestampAuthority | undefined;
  /** Signs each new epoch's log checkpoint (docs/CHECKPOINTS.md): the service's receipt signer. */
  signer: Signer;
  clock?: () => number;
  /** Older unanchored epochs retried in this run; default ANCHOR_RETRIES_PER_RUN (run-follow-ups.ts). */
  anchorRetries?: number;
}

export interface SealerReport {
  /** Organizations with recent activity, sealable yet or not. */
  organizations: number;
  /** Organizations left for the next run: leased by another run, or out of time. */
  organizations_skipped: number;
  epochs_created: number;
  operations_sealed: number;
  anchored: number;
  anchor_failures: number;
  errors: string[];
}
