/**
 * The second half of a sealer run: the anchors epochs owe (follow-ups.ts), for the epochs
 * this run made and for older ones a TSA failure left in the follow-up index, bounded so
 * that a slow or down TSA costs a run little: new epochs first, then at most
 * `anchorRetries` older ones.
 */
import { followUpEpochs, readEpochItem, type EpochItem, type FollowUpStage } from '../../store/epochs.js';
import { logger } from '../../logger.js';
import type { TimestampAuthority } from '../ports.js';
import { forEachBounded } from '../../shared/bounded.js';
import { anchorEpoch, anchorPending, settleFollowUp } from './follow-ups.js';
import type { SealerReport, SealerRunOptions } from './sealer-run.js';

const FOLLOW_UP_CONCURRENCY = 8;
/** Older epochs whose anchor is retried per run: bounded, so a long TSA outage cannot swamp a run. */
const ANCHOR_RETRIES_PER_RUN = 20;
const ANCHOR_CONCURRENCY = 4;
/** After this many failures in a row the TSA is taken to be down for the rest of the run. */
const TSA_FAILURES_TO_GIVE_UP = 2;
/** A TSA request is started only with this much time left (the client's 10 s timeout, plus storing). */
const ANCHOR_MIN_TIME_LEFT_MS = 11_000;

/** An error as one line for the run report and logs. */
export function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

const epochRef = (item: { org_id: string; start_time: number }) => `${item.org_id}/${item.start_time}`;

/** Older epochs in a follow-up stage, re-read strongly consistently (the index may lag). */
async function openEpochs(stage: FollowUpStage, limit: number, skip: Set<string>): Promise<EpochItem[]> {
  if (limit <= 0) return [];
  const refs = (await followUpEpochs(stage, limit)).filter((ref) => !skip.has(epochRef(ref)));
  const items: EpochItem[] = [];
  await forEachBounded(refs, FOLLOW_UP_CONCURRENCY, async (ref) => {
    const item = await readEpochItem(ref.org_id, ref.start_time);
    if (item) items.push(item);
  });
  return items.sort((a, b) => a.start_time - b.start_time);
}

/**
 * The first request of a run goes alone, as a probe: when it fails the TSA is taken to be
 * down and everything waits for the next run (a down TSA costs one timeout per run). The
 * rest go a few at a time, until failures in a row say the TSA went down meanwhile.
 */
async function anchorAll(due: EpochItem[], tsa: TimestampAuthority, options: SealerRunOptions, clock: () => number, report: SealerReport) {
  let failuresInARow = 0;
  const attempt = async (item: EpochItem): Promise<boolean> => {
    if (failuresInARow >= TSA_FAILURES_TO_GIVE_UP || clock() + ANCHOR_MIN_TIME_LEFT_MS > options.deadline) return false;
    try {
      await anchorEpoch(item, tsa);
      report.anchored++;
      failuresInARow = 0;
      return true;
    } catch (error) {
      report.anchor_failures++;
      failuresInARow++;
      logger.warn('epoch anchoring failed; retried on a later run', { epoch_id: item.epoch_id, error: describe(error) });
      return false;
    }
  };
  const [probe, ...rest] = due;
  if (!probe || !(await attempt(probe))) return;
  await forEachBounded(rest, ANCHOR_CONCURRENCY, async (item) => {
    await attempt(item);
  });
}

export async function followUps(fresh: EpochItem[], options: SealerRunOptions, clock: () => number, report: SealerReport) {
  if (!options.tsa) return;
  const tsa = options.tsa;
  const skip = new Set(fresh.map(epochRef));
  const unanchored = await openEpochs('anchor', options.anchorRetries ?? ANCHOR_RETRIES_PER_RUN, skip);
  // New epochs first (a fresh time-stamp is worth most), then the oldest waiting ones.
  const due = [...fresh, ...unanchored].filter((item) => anchorPending(item, tsa));
  await anchorAll(due, tsa, options, clock, report);
  await forEachBounded([...fresh, ...unanchored], FOLLOW_UP_CONCURRENCY, async (item) => {
    try {
      await settleFollowUp(item, tsa);
    } catch (error) {
      report.errors.push(`epoch ${item.epoch_id}: ${describe(error)}`);
    }
  });
}
