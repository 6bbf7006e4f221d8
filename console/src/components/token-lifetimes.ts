/**
 * The lifetimes the console offers for a new API token, within the organization's cap
 * (`max_token_ttl_seconds`, docs/API.md §2.7): under a cap, a longer lifetime or none at all is
 * VALIDATION_ERROR (§4.1), so those are not offered, and the cap itself is when no preset
 * matches it. Without a cap, 90 days comes first rather than "No expiry": a forgotten token
 * should stop working on its own.
 */
interface Lifetime {
  label: string;
  /** null: no expiry. */
  seconds: number | null;
}

const DAY = 86_400;
const PRESETS: Lifetime[] = [
  { label: '1 day', seconds: DAY },
  { label: '7 days', seconds: 7 * DAY },
  { label: '30 days', seconds: 30 * DAY },
  { label: '90 days', seconds: 90 * DAY },
  { label: '1 year', seconds: 365 * DAY },
];
const DEFAULT_SECONDS = 90 * DAY;

/** A whole number of days, hours, minutes or seconds: "60 days", "12 hours", "1 minute". */
export function duration(seconds: number): string {
  const [size, unit] = seconds % DAY === 0 ? [DAY, 'day'] : seconds % 3600 === 0 ? [3600, 'hour'] : seconds % 60 === 0 ? [60, 'minute'] : [1, 'second'];
  const count = seconds / size;
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** The choices for an organization whose cap is `cap` (null: none), shortest first. */
export function lifetimesWithin(cap: number | null): Lifetime[] {
  if (cap === null) return [...PRESETS, { label: 'No expiry', seconds: null }];
  const fitting = PRESETS.filter((preset) => preset.seconds! <= cap);
  if (!fitting.some((preset) => preset.seconds === cap)) fitting.push({ label: `${duration(cap)} (the organization's limit)`, seconds: cap });
  return fitting;
}

/** 90 days when offered, else the longest choice (a cap below 90 days). */
export function defaultLifetime(choices: Lifetime[]): Lifetime {
  return choices.find((choice) => choice.seconds === DEFAULT_SECONDS) ?? choices[choices.length - 1]!;
}
