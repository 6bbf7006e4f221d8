/**
 * Epoch windows (docs/PROTOCOL.md, Merkle epochs): `[start_time, start_time + E)`, aligned to the
 * Unix epoch (`start_time = floor(t / E) * E`). E is 5 minutes in AWS and LEDGER_EPOCH_MS on
 * the local stack; it is a deployment constant, since windows of two lengths would overlap.
 */

/** Start of the window holding instant `t`. */
export function windowStart(t: number, epochMs: number): number {
  return Math.floor(t / epochMs) * epochMs;
}

/**
 * The end of the latest window that may be sealed at `now`: windows that ended at least
 * `graceMs` ago (docs/PROTOCOL.md: "closes a window only after a grace period longer than the
 * submit function's timeout"). Every window ending at or before this instant is sealable.
 */
export function sealableEnd(now: number, epochMs: number, graceMs: number): number {
  return windowStart(now - graceMs, epochMs);
}
