/**
 * An organization's key history (docs/PROTOCOL.md "Key events"): its events by key_index, a
 * head with the size and the last event's hash, and the changes not yet chained, in a
 * partition of their own.
 *
 * | item          | pk                  | sk                                      |
 * |---------------|---------------------|-----------------------------------------|
 * | head          | ORG#<org>#KEYLOG    | HEAD                                    |
 * | key event     | ORG#<org>#KEYLOG    | EVENT#<key_index, 10 digits>            |
 * | pending drafts | ORG#<org>#KEYLOG   | PENDING#<agent_id>#<time, ms>#<uuid>    |
 *
 * A key change writes its drafts as one pending item in the transaction that changes the
 * keys (store/agents.ts), so a key never changes without them, and no two key changes write
 * the same item. The drafts get their key_index and prev_event_hash when they are chained
 * (lambdas/domain/agents/key-sequencer.ts): one transaction turns the oldest pending items
 * into events and deletes them, with the head conditioned on the size it had when read, so no
 * index is taken twice and no draft is chained twice.
 */
import { randomUUID } from 'node:crypto';
import type { KeyEvent, KeyEventDraft } from '@agent-ledger/protocol';
import { getItem, padMs, queryAll, queryPage, strip, table, type TransactItem } from './dynamo.js';

interface KeyLogHead {
  org_id: string;
  /** events in the history: the next key_index */
  size: number;
  /** event hash of the last event (GENESIS_KEY_EVENT when none) */
  head: string;
  updated_at: number;
}

/** One key change's drafts, waiting for their indexes. */
export interface PendingKeyEvents {
  sk: string;
  drafts: KeyEventDraft[];
}

const partition = (orgId: string) => `ORG#${orgId}#KEYLOG`;
export const keyLogHeadKey = (orgId: string) => ({ pk: partition(orgId), sk: 'HEAD' });
const eventKey = (orgId: string, index: number) => ({ pk: partition(orgId), sk: `EVENT#${String(index).padStart(10, '0')}` });

/** Strongly consistent: the sequencer and the sealer decide on it. */
export const readKeyLogHead = (orgId: string) => getItem<KeyLogHead>(keyLogHeadKey(orgId));

/**
 * A fresh pending item's sort key. Under its agent, so that a change can ask whether an
 * earlier change of the same agent still waits (agent ids never hold '#', docs/API.md §8); its
 * time orders an agent's changes that no reader saw waiting together.
 */
export const newPendingSk = (agentId: string, now: number): string => `PENDING#${agentId}#${padMs(now)}#${randomUUID()}`;

/** The transaction item that leaves a key change's drafts waiting to be chained. */
export function pendingKeyEventsPut(orgId: string, sk: string, drafts: readonly KeyEventDraft[], now: number): TransactItem {
  return { Put: { TableName: table(), Item: { pk: partition(orgId), sk, org_id: orgId, drafts, created_at: now }, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/**
 * Waiting changes by agent, then time; with `agentId`, that agent's only. Strongly consistent:
 * a change that committed is always seen.
 */
export async function readPendingKeyEvents(orgId: string, limit: number, agentId?: string): Promise<PendingKeyEvents[]> {
  const items = await queryPage({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :pending)',
    ExpressionAttributeValues: { ':pk': partition(orgId), ':pending': agentId === undefined ? 'PENDING#' : `PENDING#${agentId}#` },
    ConsistentRead: true,
    Limit: limit,
  });
  return items.map((item) => ({ sk: item.sk as string, drafts: item.drafts as KeyEventDraft[] }));
}

/**
 * The transaction items chaining `chained` (the drafts of `pending`, numbered from a head of
 * `readSize`; undefined: no head yet): each event put, each pending item deleted, the head moved.
 */
export function keyLogChainItems(orgId: string, readSize: number | undefined, pending: readonly PendingKeyEvents[], events: readonly KeyEvent[], head: string, now: number): TransactItem[] {
  const last = events[events.length - 1];
  if (last === undefined) return [];
  return [
    ...events.map((event): TransactItem => ({ Put: { TableName: table(), Item: { ...eventKey(orgId, event.key_index), ...event }, ConditionExpression: 'attribute_not_exists(pk)' } })),
    ...pending.map((p): TransactItem => ({ Delete: { TableName: table(), Key: { pk: partition(orgId), sk: p.sk }, ConditionExpression: 'attribute_exists(pk)' } })),
    {
      Put: {
        TableName: table(),
        Item: { ...keyLogHeadKey(orgId), org_id: orgId, size: last.key_index + 1, head, updated_at: now },
        ConditionExpression: readSize === undefined ? 'attribute_not_exists(pk)' : '#size = :size',
        ...(readSize === undefined ? {} : { ExpressionAttributeNames: { '#size': 'size' }, ExpressionAttributeValues: { ':size': readSize } }),
      },
    },
  ];
}

/** Every key event of the organization, by key_index (what an export carries). */
export async function listKeyEvents(orgId: string): Promise<KeyEvent[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :events)',
    ExpressionAttributeValues: { ':pk': partition(orgId), ':events': 'EVENT#' },
  });
  return items.map((item) => strip<KeyEvent>(item));
}
