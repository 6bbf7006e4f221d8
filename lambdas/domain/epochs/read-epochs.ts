/**
 * GET /v1/epochs and GET /v1/epochs/:epoch_id (docs/API.md §4.7). Tenancy is in the key: both
 * read only the caller's organization partition, so another organization's epoch id is
 * NOT_FOUND like an unknown one.
 */
import { anchorOf, epochItemsBetween, epochItemsNewestFirst, epochOf, readEpochItem } from '../../store/epochs.js';
import type { OrgCaller } from '../auth/caller.js';
import { LedgerError, notFound } from '../../shared/errors.js';
import type { Epoch, EpochAnchor } from './epoch.js';
import { startTimeOfEpochId } from './epoch-id.js';

/** Opaque to clients: the start_time of the last epoch of the previous page. */
const CURSOR_PREFIX = 'e1.';

function encodeCursor(startTime: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${startTime}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const startTime = Number(text.slice(CURSOR_PREFIX.length));
  if (!text.startsWith(CURSOR_PREFIX) || !Number.isSafeInteger(startTime) || startTime < 0) {
    throw new LedgerError('VALIDATION_ERROR', 'query.cursor: not a cursor from a previous page');
  }
  return startTime;
}

export async function listEpochs(
  caller: OrgCaller,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ epochs: Epoch[]; cursor?: string }> {
  const before = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
  const { items, more } = await epochItemsNewestFirst(caller.orgId, page.limit, before);
  const epochs = items.map(epochOf);
  const last = epochs.at(-1);
  return more && last ? { epochs, cursor: encodeCursor(last.start_time) } : { epochs };
}

export async function getEpoch(caller: OrgCaller, epochId: string): Promise<{ epoch: Epoch; anchor: EpochAnchor | null }> {
  const startTime = startTimeOfEpochId(epochId);
  const item = startTime === undefined ? undefined : await readEpochItem(caller.orgId, startTime);
  if (!item || item.epoch_id !== epochId.toLowerCase()) throw notFound(`epoch ${epochId}`);
  return { epoch: epochOf(item), anchor: anchorOf(item) };
}

/**
 * The organization's epochs with start_time in [from, to), oldest first, each with its anchor
 * when anchored: as GET /v1/epochs/:epoch_id answers them (the export bundle's epochs,
 * docs/EXPORT.md).
 */
export async function epochsWithAnchors(orgId: string, from: number, to: number): Promise<{ epoch: Epoch; anchor?: EpochAnchor }[]> {
  return (await epochItemsBetween(orgId, from, to)).map((item) => {
    const anchor = anchorOf(item);
    return { epoch: epochOf(item), ...(anchor ? { anchor } : {}) };
  });
}
