/** The buckets of the activity statistics (docs/API.md §4.11): UTC hours and UTC days, by length in ms. */
export const BUCKET_MS = { hour: 3_600_000, day: 86_400_000 } as const;
export type BucketName = keyof typeof BUCKET_MS;

/** At most a month of hours and a year of days in one answer. */
export const MAX_BUCKETS: Record<BucketName, number> = { hour: 744, day: 366 };
