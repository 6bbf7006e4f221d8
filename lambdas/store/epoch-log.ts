/**
 * The head of an organization's epoch log (docs/CHECKPOINTS.md "Service"): one item per
 * organization, in a partition of its own so that listing epochs never meets it.
 *
 * | item     | pk                   | sk   |
 * |----------|----------------------|------|
 * | log head | ORG#<org>#EPOCHLOG   | HEAD |
 *
 * It is written only in the transaction that creates an epoch (epochs.ts createEpochItem),
 * conditioned on the size it had when the sealer read it: two sealers can never both append
 * index N, and an epoch never exists without the head that counts it.
 */
import { getItem, queryPages } from './dynamo.js';
import { epochKeys } from './epochs.js';
import { logHeadKey, type LogHead } from './epoch-log-head.js';


/** Strongly consistent: the sealer decides the next index on it. */
export const readLogHead = (orgId: string) => getItem<LogHead>(logHeadKey(orgId));

/**
 * The entry hashes of the log's first `size` entries, by index, from the epoch items
 * (docs/CHECKPOINTS.md "Service": the log is recomputed from them, one small attribute per
 * epoch). Throws when an index below `size` has no epoch: the log is then broken, and
 * serving a proof from it would be a lie.
 */
export async function logEntryHashes(orgId: string, size: number): Promise<string[]> {
  const hashes: (string | undefined)[] = new Array<string | undefined>(size).fill(undefined);
  const pages = queryPages({
    KeyConditionExpression: 'pk = :pk',
    FilterExpression: 'attribute_exists(epoch_index)',
    ProjectionExpression: 'epoch_index, log_entry_hash',
    ExpressionAttributeValues: { ':pk': epochKeys.partition(orgId) },
    ConsistentRead: true,
  });
  for await (const page of pages) {
    for (const raw of page) {
      const index = raw.epoch_index as number;
      if (index < size) hashes[index] = raw.log_entry_hash as string;
    }
  }
  const missing = hashes.findIndex((h) => h === undefined);
  if (missing >= 0) throw new Error(`epoch log of ${orgId}: no epoch holds index ${missing} of ${size}`);
  return hashes as string[];
}
