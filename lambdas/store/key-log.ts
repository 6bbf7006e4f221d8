/**
 * An organization's key history (docs/PROTOCOL.md "Key events"): its events by key_index and
 * a head with the size and the last event's hash, in a partition of their own.
 *
 * | item      | pk                  | sk                        |
 * |-----------|---------------------|---------------------------|
 * | head      | ORG#<org>#KEYLOG    | HEAD                      |
 * | key event | ORG#<org>#KEYLOG    | EVENT#<key_index, 10 digits> |
 *
 * Events are written only in the transaction that changes the keys (store/agents.ts), with
 * the head conditioned on the size it had when read: two key changes can never both take
 * index N, and a key never changes without its event.
 */
import type { KeyEvent } from '@agent-ledger/protocol';
import { getItem, queryAll, strip, table, type TransactItem } from './dynamo.js';

interface KeyLogHead {
  org_id: string;
  /** events in the history: the next key_index */
  size: number;
  /** event hash of the last event (GENESIS_KEY_EVENT when none) */
  head: string;
  updated_at: number;
}

const partition = (orgId: string) => `ORG#${orgId}#KEYLOG`;
export const keyLogHeadKey = (orgId: string) => ({ pk: partition(orgId), sk: 'HEAD' });
const eventKey = (orgId: string, index: number) => ({ pk: partition(orgId), sk: `EVENT#${String(index).padStart(10, '0')}` });

/** Strongly consistent: the next key change and the sealer decide on it. */
export const readKeyLogHead = (orgId: string) => getItem<KeyLogHead>(keyLogHeadKey(orgId));

/** The transaction items appending `events` after a head of `size` (undefined: no head yet). */
export function keyLogAppendItems(orgId: string, readSize: number | undefined, events: readonly KeyEvent[], head: string, now: number): TransactItem[] {
  const last = events[events.length - 1];
  if (last === undefined) return [];
  return [
    ...events.map(
      (event): TransactItem => ({
        Put: { TableName: table(), Item: { ...eventKey(orgId, event.key_index), ...event }, ConditionExpression: 'attribute_not_exists(pk)' },
      }),
    ),
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
