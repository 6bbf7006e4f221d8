/**
 * The organization's epoch log as an export carries it (docs/CHECKPOINTS.md "In an export"):
 * the latest checkpoint, every entry hash up to it, and the full entries of the epochs
 * overlapping the export's range plus the one before and the one after, each with its
 * inclusion path in the log at the checkpoint.
 *
 * The leaves are recomputed from the epoch items (one small attribute each): an export of a
 * log of n epochs reads n items and carries 45 bytes per epoch, about 4.5 MB at the
 * documented bound of 100,000 epochs (a year of 5-minute epochs of an organization active
 * around the clock is 105,120).
 */
import { MerkleTree, b64uEncode, logLeafHash, logOrigin, type ExportLog, type ExportLogEntry } from '@agent-ledger/protocol';
import { logEntryHashes, readLogHead } from '../../store/epoch-log.js';
import { epochItemNeighbour, epochItemsBetween, type EpochItem } from '../../store/epochs.js';
import { logEntryOf } from './epoch-log.js';
import { listKeyEvents } from '../../store/key-log.js';

type Indexed = EpochItem & { epoch_index: number; prev_root_hash: string };

const indexed = (item: EpochItem | undefined, size: number): item is Indexed =>
  item !== undefined && item.epoch_index !== undefined && item.prev_root_hash !== undefined && item.epoch_index < size;

/** The epochs before `from`, newest first, down to the first whose window ends at or before `from` (included). */
async function epochsReachingInto(orgId: string, from: number): Promise<EpochItem[]> {
  const found: EpochItem[] = [];
  for (let before = from; ; ) {
    const item = await epochItemNeighbour(orgId, { before });
    if (!item) return found;
    found.push(item);
    if (item.end_time <= from) return found;
    before = item.start_time;
  }
}

/**
 * The log as an export sees it: its size and signed checkpoint when the export began, null
 * when the organization had no epoch in its log yet. Taken once, before the export reads its
 * first operation, and kept with the export's state across runs (bundle-job.ts), so that the
 * bundle is one picture however long it takes to write: an epoch sealed after it is neither
 * in the log the bundle carries nor behind any of its proofs (docs/EXPORT.md "Writing in pieces").
 */
export type LogPicture = { size: number; checkpoint: string } | null;

export async function logPicture(orgId: string): Promise<LogPicture> {
  const head = await readLogHead(orgId);
  return head ? { size: head.size, checkpoint: head.checkpoint } : null;
}

/**
 * Whether the proof into `epoch` belongs in an export taken at `picture`: yes for an epoch
 * sealed before the log existed (it has no index) or counted by the picture; no for one
 * appended since.
 */
export function epochInPicture(epoch: { epoch_index?: number | undefined }, picture: LogPicture): boolean {
  if (epoch.epoch_index === undefined) return true;
  return picture !== null && epoch.epoch_index < picture.size;
}

/** `verification_material.log` for an export of `[from, to)` of `orgId`, as of `picture`. */
export async function exportLog(orgId: string, from: number, to: number, picture: LogPicture): Promise<ExportLog> {
  // docs/PROTOCOL.md "Key events": the whole key history as of now; the entries commit to its prefix.
  const keyEvents = await listKeyEvents(orgId);
  if (!picture) return { checkpoint: null, leaves: [], entries: [], key_events: keyEvents };
  // Epochs appended after the picture are left out: everything is as of its checkpoint.
  const { size, checkpoint } = picture;
  const [leaves, inRange, before, after] = await Promise.all([
    logEntryHashes(orgId, size),
    epochItemsBetween(orgId, from, to),
    epochsReachingInto(orgId, from),
    epochItemNeighbour(orgId, { from: to }),
  ]);
  const items = [...before.reverse(), ...inRange, after].filter((item) => indexed(item, size));
  const tree = new MerkleTree(leaves.map(logLeafHash));
  if (b64uEncode(tree.root()) !== checkpointRoot(checkpoint)) throw new Error(`epoch log of ${orgId}: the epochs do not reproduce the picture's checkpoint`);
  const entries: ExportLogEntry[] = items.map((item) => ({ ...logEntryOf(item), audit_path: tree.auditPath(item.epoch_index).map(b64uEncode) }));
  if (!checkpoint.startsWith(`${logOrigin(orgId)}\n`)) throw new Error(`epoch log of ${orgId}: the picture's checkpoint names another origin`);
  return { checkpoint, leaves, entries, key_events: keyEvents };
}

/** The b64u root a checkpoint note states (its third line is standard base64). */
function checkpointRoot(note: string): string {
  return Buffer.from(note.split('\n')[2] ?? '', 'base64').toString('base64url');
}
