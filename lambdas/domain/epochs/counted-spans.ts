/**
 * Reading sealed history by its counts (domain/epochs/epoch-counts.ts): which days and hours
 * of a range a count can take whole from their items (store/epoch-span-counts.ts), and which
 * epochs it reads for the rest.
 *
 * Each unit reads the whole spans inside its range; the range's cut ends go to the next finer
 * unit at once, in parallel, and so do the holes between the items it found once it has read
 * them (a span without an item: an hour without an epoch, or history sealed before items were
 * kept). Epochs are the finest unit. So a range that cuts both its days reads its day items,
 * the hour items at both ends and the epochs of the two cut hours in one round of requests,
 * and a second round only where an item was missing.
 */
import { forEachBounded } from '../../shared/bounded.js';
import { TtlCache } from '../../shared/ttl-cache.js';
import { spanCountsBetween, spanMs, type SpanCountItem, type SpanUnit } from '../../store/epoch-span-counts.js';
import { epochCountsBefore, epochCountsBetween, epochItemNeighbour, type EpochCountsItem } from '../../store/epochs.js';

/** A time range [from, to). */
export type Range = [from: number, to: number];

/** Holes of one read covered at once (each is itself a read or more). */
const HOLE_CONCURRENCY = 4;

interface SealedCover {
  /** The items used: each span lies wholly inside the range, and its item has counts and fits. */
  spans: SpanCountItem[];
  /**
   * The epochs starting in the parts of the range no span covers, and the one starting before
   * the range whose window reaches into it. The caller counts those its range cuts from the index.
   * None starts inside a span used: an epoch whose window a span's item counted past the span's
   * end (windows that do not divide it) starts in that span, so it is never read again.
   */
  epochs: EpochCountsItem[];
}

/**
 * Covers [from, to) with spans of `units` (coarsest first) whose items have counts and
 * `fit`, and epochs. `fit` decides about an item whose last window ends past its span
 * (windows that do not divide it): only the caller knows whether that window still belongs
 * to what it counts.
 */
export async function coverSealed(orgId: string, range: Range, units: readonly SpanUnit[], fit: (item: SpanCountItem) => boolean): Promise<SealedCover> {
  const cover: SealedCover = { spans: [], epochs: [] };
  // Nothing is sealed before an organization's first epoch: a range reaching before it (every
  // range without a start) is read from there, without the reads of empty spans before it.
  const first = firstEpochs.get(orgId);
  const from = first === undefined ? range[0] : Math.max(range[0], first);
  const to = range[1];
  if (from >= to) return cover;
  const before = async () => {
    if (first !== undefined && from <= first) return;
    // No epoch starts before 0, so a range from there has no use for the epoch before it; it
    // reads the first epoch instead, for the ranges after it.
    if (from <= 0) return rememberFirstEpoch(orgId);
    const epoch = await epochCountsBefore(orgId, from);
    if (epoch !== undefined && epoch.end_time > from) cover.epochs.push(epoch);
  };
  const parts = [before, () => coverRange(orgId, [from, to], units, fit, cover)];
  await forEachBounded(parts, parts.length, (part) => part());
  return cover;
}

/**
 * Each organization's first epoch's start, once read. It never changes: the sealer seals
 * forward from sealed_until, and no operation commits below it (docs/STORAGE.md, "Sealing
 * epochs without writing to operations": late operations cannot exist), so no epoch is ever
 * created before the first one.
 */
const firstEpochs = new TtlCache<number>(60 * 60_000, 10_000);

async function rememberFirstEpoch(orgId: string): Promise<void> {
  const first = await epochItemNeighbour(orgId, { from: 0 });
  if (first !== undefined) firstEpochs.set(orgId, first.start_time);
}

async function coverRange(orgId: string, [from, to]: Range, units: readonly SpanUnit[], fit: (item: SpanCountItem) => boolean, cover: SealedCover): Promise<void> {
  if (from >= to) return;
  const [unit, ...finer] = units;
  if (unit === undefined) {
    cover.epochs.push(...(await epochCountsBetween(orgId, from, to)));
    return;
  }
  const ms = spanMs(unit);
  const first = Math.ceil(from / ms) * ms;
  const last = Math.floor(to / ms) * ms;
  if (first >= last) return coverRange(orgId, [from, to], finer, fit, cover);
  const inside = async () => {
    const holes: Range[] = [];
    let covered = first;
    for (const item of await spanCountsBetween(orgId, unit, first, last)) {
      if (item.counts === undefined || !fit(item)) continue;
      holes.push([covered, item.start]);
      covered = item.start + ms;
      cover.spans.push(item);
    }
    holes.push([covered, last]);
    await forEachBounded(holes, HOLE_CONCURRENCY, (hole) => coverRange(orgId, hole, finer, fit, cover));
  };
  const parts = [() => coverRange(orgId, [from, first], finer, fit, cover), inside, () => coverRange(orgId, [last, to], finer, fit, cover)];
  await forEachBounded(parts, parts.length, (part) => part());
}
