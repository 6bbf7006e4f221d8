/**
 * An organization's epochs as one append-only log (docs/CHECKPOINTS.md): each new epoch
 * takes the next index, names its predecessor's root, and comes with the signed checkpoint
 * of the log tree after it. The head (store/epoch-log.ts) holds the tree's compact range, so
 * an append costs O(log n) hashes and one signature, whatever the log's length.
 */
import {
  EMPTY_FRONTIER,
  GENESIS_KEY_EVENT,
  GENESIS_PREV_ROOT,
  appendLeaf,
  b64uEncode,
  frontierRoot,
  logEntryHash,
  logLeafHash,
  logOrigin,
  signCheckpoint,
  type EpochLogEntry,
} from '@agent-ledger/protocol';
import { readLogHead } from '../../store/epoch-log.js';
import { readKeyLogHead } from '../../store/key-log.js';
import type { EpochItem } from '../../store/epochs.js';
import { chainPendingKeyEvents } from '../agents/key-sequencer.js';
import type { Signer } from '../ports.js';

/** How long sealing waits for waiting key changes to be chained before it gives up for this run. */
const KEY_CHAIN_BUDGET_MS = 20_000;

/** The log entry of an indexed epoch item, with its key history commitment when it has one. */
export function logEntryOf(item: EpochItem & { epoch_index: number; prev_root_hash: string }): EpochLogEntry {
  const { epoch_id, org_id, epoch_index, start_time, end_time, root_hash, leaf_count, prev_root_hash, key_log_size, key_log_head } = item;
  const entry: EpochLogEntry = { epoch_id, org_id, epoch_index, start_time, end_time, root_hash, leaf_count, prev_root_hash };
  return key_log_size === undefined || key_log_head === undefined ? entry : { ...entry, key_log_size, key_log_head };
}

/** The service key's raw public half (b64u) for the kid the signer signs with now. */
async function currentPublicKey(signer: Signer): Promise<string> {
  const [kid, keys] = await Promise.all([signer.kid(), signer.jwks()]);
  const jwk = keys.find((k) => k.kid === kid);
  if (!jwk) throw new Error(`the signer's JWKS does not list its current key ${kid}`);
  return jwk.x;
}

/**
 * `item` as the next entry of its organization's log: epoch_index, prev_root_hash, the
 * entry hash, the tree's new compact range and its signed checkpoint. Nothing is written
 * here; store/epochs.ts createEpochItem commits it against the head read here.
 */
export async function appendToLog(item: EpochItem, signer: Signer): Promise<EpochItem> {
  // The entry commits to the key history as it is now: every key that signed one of this
  // epoch's operations was registered before the window closed (docs/CHECKPOINTS.md "Key
  // history"), its drafts committed with its key; a change whose drafts are still waiting to be
  // chained (its process stopped before it answered) is chained first.
  if (!(await chainPendingKeyEvents(item.org_id, Date.now() + KEY_CHAIN_BUDGET_MS))) {
    throw new Error(`the key history of ${item.org_id} could not be chained before sealing; the next run retries`);
  }
  const [head, keys] = await Promise.all([readLogHead(item.org_id), readKeyLogHead(item.org_id)]);
  const indexed = {
    ...item,
    epoch_index: head?.size ?? 0,
    prev_root_hash: head?.last_root_hash ?? GENESIS_PREV_ROOT,
    key_log_size: keys?.size ?? 0,
    key_log_head: keys?.head ?? GENESIS_KEY_EVENT,
  };
  const entryHash = logEntryHash(logEntryOf(indexed));
  const frontier = appendLeaf(head ? { size: head.size, hashes: head.frontier } : EMPTY_FRONTIER, logLeafHash(entryHash));
  const checkpoint = await signCheckpoint(
    { origin: logOrigin(item.org_id), size: frontier.size, root_hash: b64uEncode(frontierRoot(frontier)) },
    await currentPublicKey(signer),
    (message) => signer.sign(message),
  );
  return { ...indexed, log_entry_hash: entryHash, log_frontier: frontier.hashes, checkpoint };
}
