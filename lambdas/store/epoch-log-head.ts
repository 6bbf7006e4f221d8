/**
 * The log head item's key and shape (docs/CHECKPOINTS.md "Service"), apart from epoch-log.ts
 * so that epochs.ts, which writes the head in the transaction that creates an epoch, and
 * epoch-log.ts, which reads epochs, do not import each other.
 */
export interface LogHead {
  org_id: string;
  /** Entries in the log: the next epoch_index. */
  size: number;
  /** The RFC 9162 compact range of the log tree (protocol tlog/frontier.ts), b64u. */
  frontier: string[];
  /** root_hash of the last epoch appended: the next epoch's prev_root_hash. */
  last_root_hash: string;
  /** The signed checkpoint of the log at `size`. */
  checkpoint: string;
  updated_at: number;
}

export const logHeadKey = (orgId: string) => ({ pk: `ORG#${orgId}#EPOCHLOG`, sk: 'HEAD' });
