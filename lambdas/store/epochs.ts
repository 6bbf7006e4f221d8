/**
 * Epoch items in the table (docs/API.md §2.11; docs/PROTOCOL.md, Merkle epochs).
 *
 * | item  | pk                 | sk                    | gsi3 (sparse), while work is left              |
 * |-------|--------------------|-----------------------|------------------------------------------------|
 * | epoch | ORG#<org>#EPOCHS   | EPOCH#<start 13 dig.> | EPOCH_FOLLOWUP#<stage> / <start 13 dig.>#<org> |
 *
 * One partition per organization, sorted by window: the uniqueness of an (org, window) epoch
 * is a plain attribute_not_exists condition, listing newest first is one Query, and every
 * read the sealer decides on is strongly consistent (a GSI could not be).
 *
 * The epoch item's insert is the epoch.created event (the outbox, domain/outbox.ts). The
 * follow-up entry is written with the epoch when it owes an RFC 3161 anchor (stage `anchor`)
 * and removed once it has one, so an anchor that failed is found again by a later run even
 * when the organization has no new operations.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients.js';
import { logHeadKey, type LogHead } from './epoch-log-head.js';
import { CONDITION_FAILED, transact, getItem, INDEX_ATTRIBUTES, padMs, queryPage, queryPages, strip, table, updateExpression, writeIfCondition, type AttributeChanges, type QueryInput } from './dynamo.js';

/** The epoch resource (docs/API.md §2.11). */
export interface Epoch {
  epoch_id: string;
  org_id: string;
  /** Window `[start_time, end_time)`, docs/PROTOCOL.md "Merkle epochs". */
  start_time: number;
  end_time: number;
  /** b64u RFC 9162 Merkle root over the members' chain hashes. */
  root_hash: string;
  leaf_count: number;
  /** Key of the leaf list in the anchors bucket. */
  store_epoch_key: string;
  created_at: number;
  /**
   * The epoch's place in its organization's append-only log (docs/CHECKPOINTS.md): absent on
   * epochs sealed before the log existed.
   */
  epoch_index?: number;
  /** root_hash of the epoch at epoch_index - 1 (32 zero bytes at index 0). */
  prev_root_hash?: string;
  /** The C2SP tlog-checkpoint signed note of the log right after this epoch was appended. */
  checkpoint?: string;
  /** The key history its log entry commits to (docs/CHECKPOINTS.md "Key history"): absent on epochs sealed before it existed. */
  key_log_size?: number;
  key_log_head?: string;
}

/** An epoch's RFC 3161 anchor (docs/API.md §2.11). */
export interface EpochAnchor {
  tsa_url: string;
  /** The whole RFC 3161 TimeStampToken, base64 with the standard alphabet (docs/API.md §2.11). */
  tsa_token: string;
  /** The token's genTime: the instant the authority attests the root existed. */
  anchored_at: number;
}

export type FollowUpStage = 'anchor';
const followUpPartition = (stage: FollowUpStage) => `EPOCH_FOLLOWUP#${stage}`;

/**
 * How many of a window's (or a day's) operations each agent, operation type and pair of the
 * two has (domain/epochs/epoch-counts.ts). Pair keys are `JSON.stringify([agent_id, operation_type])`.
 */
export interface EpochCounts {
  agents: Record<string, number>;
  types: Record<string, number>;
  pairs: Record<string, number>;
}

/** The stored epoch: the resource, its anchor once obtained, and the sealer's bookkeeping. */
export interface EpochItem extends Epoch {
  tsa_url?: string;
  tsa_token?: string;
  anchored_at?: number;
  /** A TSA was configured when the epoch was sealed, so an anchor is owed. */
  anchor_wanted: boolean;
  /** What the epoch still owes (mirrors its follow-up index entry); absent when nothing. */
  follow_up?: FollowUpStage;
  /** The members counted by agent and type; absent on epochs sealed before counts existed, or too varied to keep. */
  counts?: EpochCounts;
  /** b64u SHA-256 of the epoch's log entry (protocol tlog/entry.ts): the log's leaf, kept to serve proofs. */
  log_entry_hash?: string;
  /** The log tree's compact range after this epoch: what the log head holds (epoch-log.ts). */
  log_frontier?: string[];
}

export const epochKeys = {
  partition: (orgId: string) => `ORG#${orgId}#EPOCHS`,
  epoch: (orgId: string, startTime: number) => ({ pk: `ORG#${orgId}#EPOCHS`, sk: `EPOCH#${padMs(startTime)}` }),
  followUp: (stage: FollowUpStage, orgId: string, startTime: number) => ({
    gsi3pk: followUpPartition(stage),
    gsi3sk: `${padMs(startTime)}#${orgId}`,
  }),
};

const EPOCH_FIELDS = ['epoch_id', 'org_id', 'start_time', 'end_time', 'root_hash', 'leaf_count', 'store_epoch_key', 'created_at'] as const;
const LOG_FIELDS = ['epoch_index', 'prev_root_hash', 'checkpoint'] as const;

/** The docs/API.md §2.11 fields only (the log's three when the epoch is in the log). */
export function epochOf(item: EpochItem): Epoch {
  const fields = item.epoch_index === undefined ? EPOCH_FIELDS : [...EPOCH_FIELDS, ...LOG_FIELDS];
  return Object.fromEntries(fields.map((field) => [field, item[field]])) as unknown as Epoch;
}

export function anchorOf(item: EpochItem): EpochAnchor | null {
  if (item.tsa_url === undefined || item.tsa_token === undefined || item.anchored_at === undefined) return null;
  return { tsa_url: item.tsa_url, tsa_token: item.tsa_token, anchored_at: item.anchored_at };
}

const stripKeys = (raw: Record<string, unknown>) => strip<EpochItem>(raw, INDEX_ATTRIBUTES);

/** The log head moved since the sealer read it: another sealer appended first (re-read and retry). */
export class LogHeadMovedError extends Error {
  constructor(orgId: string, index: number) {
    super(`the epoch log of ${orgId} is no longer at size ${index}`);
    this.name = 'LogHeadMovedError';
  }
}

/**
 * Creates the epoch unless its window already has one; false when it did (another run won).
 * An epoch with an `epoch_index` is appended to its organization's log in the same
 * transaction: the head moves from size `epoch_index` to `epoch_index + 1`, and only from
 * there (LogHeadMovedError otherwise), so no two epochs share an index and none is skipped.
 */
export async function createEpochItem(item: EpochItem): Promise<boolean> {
  const put = {
    TableName: table(),
    Item: {
      ...epochKeys.epoch(item.org_id, item.start_time),
      ...(item.follow_up ? epochKeys.followUp(item.follow_up, item.org_id, item.start_time) : {}),
      type: 'epoch',
      ...item,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  };
  if (item.epoch_index === undefined) return writeIfCondition(() => dynamo().send(new PutCommand(put)));
  const index = item.epoch_index;
  const head: LogHead = {
    org_id: item.org_id,
    size: index + 1,
    frontier: item.log_frontier ?? [],
    last_root_hash: item.root_hash,
    checkpoint: item.checkpoint ?? '',
    updated_at: item.created_at,
  };
  const result = await transact([
    { Put: put },
    {
      Put: {
        TableName: table(),
        Item: { ...logHeadKey(item.org_id), type: 'epoch_log_head', ...head },
        ConditionExpression: index === 0 ? 'attribute_not_exists(pk)' : '#size = :size',
        ...(index === 0 ? {} : { ExpressionAttributeNames: { '#size': 'size' }, ExpressionAttributeValues: { ':size': index } }),
      },
    },
  ]);
  if (result.committed) return true;
  if (result.reasons[0]?.code === CONDITION_FAILED) return false;
  throw new LogHeadMovedError(item.org_id, index);
}

export const readEpochItem = (orgId: string, startTime: number) => getItem<EpochItem>(epochKeys.epoch(orgId, startTime), INDEX_ATTRIBUTES);

/** Epochs with start_time in [from, to), oldest first, strongly consistent (the sealer decides on these). */
export async function epochItemsBetween(orgId: string, from: number, to: number): Promise<EpochItem[]> {
  return epochsBetween<EpochItem>(orgId, from, to);
}

/**
 * What counting reads of an epoch (domain/audit/count-matches.ts, the activity charts): its
 * window and its counts, without its log fields, checkpoint and anchor token, which are most of
 * an anchored epoch's bytes and which a count over a day's 288 epochs would read for nothing.
 */
export type EpochCountsItem = Pick<EpochItem, 'start_time' | 'end_time' | 'leaf_count' | 'counts'>;
const COUNT_FIELDS = ['start_time', 'end_time', 'leaf_count', 'counts'] as const satisfies readonly (keyof EpochItem)[];
const countProjection: Pick<QueryInput, 'ProjectionExpression' | 'ExpressionAttributeNames'> = { ProjectionExpression: COUNT_FIELDS.map((_, i) => `#c${i}`).join(', '), ExpressionAttributeNames: Object.fromEntries(COUNT_FIELDS.map((field, i) => [`#c${i}`, field])) };

/** The counting fields of the epochs starting in [from, to), in order. */
export function epochCountsBetween(orgId: string, from: number, to: number): Promise<EpochCountsItem[]> {
  return epochsBetween<EpochCountsItem>(orgId, from, to, countProjection);
}

/** The counting fields of the last epoch starting before `beforeStart`, if any. */
export async function epochCountsBefore(orgId: string, beforeStart: number): Promise<EpochCountsItem | undefined> {
  const [item] = await queryPage({ ...newestFirstBefore(orgId, beforeStart), Limit: 1, ...countProjection });
  return item === undefined ? undefined : (stripKeys(item) as EpochCountsItem);
}

async function epochsBetween<T extends { start_time: number }>(
  orgId: string,
  from: number,
  to: number,
  projection: Pick<QueryInput, 'ProjectionExpression' | 'ExpressionAttributeNames'> = {},
): Promise<T[]> {
  const items: T[] = [];
  const pages = queryPages({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': epochKeys.partition(orgId),
      ':from': epochKeys.epoch(orgId, from).sk,
      ':to': epochKeys.epoch(orgId, Math.max(from, to - 1)).sk,
    },
    ConsistentRead: true,
    ...projection,
  });
  for await (const page of pages) {
    for (const raw of page) {
      const item = stripKeys(raw) as unknown as T;
      if (item.start_time >= from && item.start_time < to) items.push(item);
    }
  }
  return items;
}

/** One page of an organization's epochs, newest first, starting below `beforeStart` when given. */
export async function epochItemsNewestFirst(
  orgId: string,
  limit: number,
  beforeStart?: number,
): Promise<{ items: EpochItem[]; more: boolean }> {
  // One more than asked: whether a next page exists without a second round trip.
  const page = await queryPage({ ...newestFirstBefore(orgId, beforeStart), Limit: limit + 1 });
  const items = page.map(stripKeys);
  return { items: items.slice(0, limit), more: items.length > limit };
}

/** The Query of an organization's epochs newest first, those starting before `beforeStart` when given. */
function newestFirstBefore(orgId: string, beforeStart: number | undefined): QueryInput {
  return {
    KeyConditionExpression: beforeStart === undefined ? 'pk = :pk' : 'pk = :pk AND sk < :before',
    ExpressionAttributeValues: {
      ':pk': epochKeys.partition(orgId),
      ...(beforeStart === undefined ? {} : { ':before': epochKeys.epoch(orgId, beforeStart).sk }),
    },
    ScanIndexForward: false,
  };
}

async function update(orgId: string, startTime: number, input: AttributeChanges & { condition?: string; values?: Record<string, unknown> }): Promise<boolean> {
  const { expression, names, values: changed } = updateExpression(input);
  const values = { ...input.values, ...changed };
  return writeIfCondition(() =>
    dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: epochKeys.epoch(orgId, startTime),
        UpdateExpression: expression,
        ConditionExpression: input.condition ? `attribute_exists(pk) AND (${input.condition})` : 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      }),
    ),
  );
}

/** Stores the anchor unless one is already stored (the first valid token stays). */
export function recordAnchor(orgId: string, startTime: number, anchor: EpochAnchor): Promise<boolean> {
  return update(orgId, startTime, { set: { ...anchor }, condition: 'attribute_not_exists(anchored_at)' });
}

/** Moves the epoch to another follow-up stage, or out of the index (undefined: nothing left to do). */
export function setFollowUpStage(orgId: string, startTime: number, stage: FollowUpStage | undefined): Promise<boolean> {
  return stage === undefined
    ? update(orgId, startTime, { remove: ['gsi3pk', 'gsi3sk', 'follow_up'] })
    : update(orgId, startTime, { set: { ...epochKeys.followUp(stage, orgId, startTime), follow_up: stage } });
}

/** Epochs in a follow-up stage, oldest window first (eventually consistent: re-read before acting). */
export async function followUpEpochs(stage: FollowUpStage, limit: number): Promise<{ org_id: string; start_time: number }[]> {
  const page = await queryPage({
    IndexName: 'gsi3',
    KeyConditionExpression: 'gsi3pk = :pk',
    ExpressionAttributeValues: { ':pk': followUpPartition(stage) },
    Limit: limit,
  });
  // The index holds keys only: gsi3sk is `<start_time 13 digits>#<org_id>`.
  return page.map((item) => {
    const [start, orgId] = String(item.gsi3sk).split('#');
    return { org_id: orgId!, start_time: Number(start) };
  });
}

/** The organization's epoch with the greatest start_time below `before`, or the least at or after `from`: the log's neighbours of a range. */
export async function epochItemNeighbour(orgId: string, side: { before: number } | { from: number }): Promise<EpochItem | undefined> {
  const backwards = 'before' in side;
  const page = await queryPage({
    KeyConditionExpression: backwards ? 'pk = :pk AND sk < :at' : 'pk = :pk AND sk >= :at',
    ExpressionAttributeValues: { ':pk': epochKeys.partition(orgId), ':at': epochKeys.epoch(orgId, backwards ? side.before : side.from).sk },
    ScanIndexForward: !backwards,
    Limit: 1,
    ConsistentRead: true,
  });
  return page[0] === undefined ? undefined : stripKeys(page[0]);
}
