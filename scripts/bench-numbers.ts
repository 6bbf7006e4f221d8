/** What the benchmark scripts share: positive-integer settings from the environment and latency percentiles. */

/** A positive integer from the environment variable `name`, or `fallback` when it is unset. */
export function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** The nearest-rank percentile `p` of ascending `sorted`; NaN when empty. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** p50 and p99 of `values` (any order). */
export function latencyStats(values: number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}
