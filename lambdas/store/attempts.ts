/**
 * An agent's refused attempts (docs/API.md §4.3 "Refused attempts"): append-only, one item per
 * kept attempt in the agent's attempts partition, newest first by `AT#<received_at>#<operation_id>`
 * (layout: ledger-items.ts). A guard item per operation_id in the same partition, written in
 * the same transaction, keeps an attempt sent twice once: the entry's key holds the server
 * time, so only the guard can say "this operation_id is already kept". Both carry the table's
 * TTL attribute (table-design.ts), so the log ends by itself after the retention.
 *
 * Nothing updates or deletes an attempt: it is evidence of what was tried.
 */
import type { StandingCode } from '../shared/errors.js';
import { TABLE_DESIGN } from './table-design.js';
import { padMs, queryPage, strip, table, transact } from './dynamo.js';
import { ledgerKeys, TYPE } from './ledger-items.js';

export interface AttemptItem {
  operation_id: string;
  org_id: string;
  agent_id: string;
  kid: string;
  refused_code: StandingCode;
  refused_message: string;
  /** Server time the submission was received (Unix ms). */
  received_at: number;
  /** The record as submitted, canonical JSON (RFC 8785) without its payload. */
  record_json: string;
  payload_hash: string;
  /** The canonical payload when it is at most LEDGER_INLINE_PAYLOAD_BYTES; absent otherwise (kept by its hash only). */
  payload_json?: string;
}

/** Where an attempt sits in its agent's log (its sort key after the prefix): what a page cursor carries. */
export const attemptPosition = (attempt: Pick<AttemptItem, 'received_at' | 'operation_id'>): string => `${padMs(attempt.received_at)}#${attempt.operation_id}`;

/** Keeps `attempt` until `expiresAtS`; false when its operation_id was kept already (or is being kept by a concurrent request). */
export async function putAttempt(attempt: AttemptItem, expiresAtS: number): Promise<boolean> {
  const { org_id: orgId, agent_id: agentId } = attempt;
  const ttl = { [TABLE_DESIGN.ttlAttribute]: expiresAtS };
  const result = await transact([
    {
      Put: {
        TableName: table(),
        Item: { ...ledgerKeys.attemptGuard(orgId, agentId, attempt.operation_id), type: TYPE.attemptGuard, ...ttl },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: table(),
        Item: { ...ledgerKeys.attempt(orgId, agentId, attemptPosition(attempt)), type: TYPE.attempt, ...attempt, ...ttl },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
  return result.committed;
}

/** A page of the agent's attempts, newest first, strictly before `before` (a position) when given. */
export async function attemptsNewestFirst(orgId: string, agentId: string, limit: number, before?: string): Promise<{ items: AttemptItem[]; more: boolean }> {
  const bound = before === undefined ? undefined : `${ledgerKeys.attemptPrefix}${before}`;
  const page = await queryPage({
    KeyConditionExpression: bound === undefined ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk AND sk BETWEEN :prefix AND :before',
    ExpressionAttributeValues: { ':pk': ledgerKeys.attemptPartition(orgId, agentId), ':prefix': ledgerKeys.attemptPrefix, ...(bound === undefined ? {} : { ':before': bound }) },
    ScanIndexForward: false,
    ConsistentRead: true,
    // One more than asked, to know whether a next page exists; one more again when the bound
    // itself (inclusive in BETWEEN) comes back first.
    Limit: limit + (bound === undefined ? 1 : 2),
  });
  const items = page.filter((raw) => raw.sk !== bound).map((raw) => strip<AttemptItem>(raw, [TABLE_DESIGN.ttlAttribute]));
  return { items: items.slice(0, limit), more: items.length > limit };
}
