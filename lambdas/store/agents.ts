/**
 * Agents and their keys in the table (layout: ledger-items.ts). Reads are strongly
 * consistent: a key registered a moment ago must sign the next submission, and a freeze must
 * stop the very next one. Every write is one transaction that also carries its admin event
 * (admin-events.ts), so the admin log and the state can never disagree.
 *
 * Write functions return false when a condition failed (the state moved under the caller);
 * the domain re-reads and decides what that means.
 */
import { TransactGetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients.js';
import {
  CONDITION_FAILED,
  getItem,
  INDEX_ATTRIBUTES,
  padMs,
  prefixQuery,
  queryAll,
  queryPages,
  strip,
  table,
  transact,
  writeIfCondition,
  type TransactItem,
} from './dynamo.js';
import { identityKeys } from './identity-items.js';
import { ACTIVITY_SHARDS, ledgerKeys, TYPE, type AgentItem, type AgentKeyItem, type AgentStatus } from './ledger-items.js';

export const readAgent = async (orgId: string, agentId: string) => (await getItem<AgentItem>(ledgerKeys.agent(orgId, agentId), INDEX_ATTRIBUTES)) ?? null;

export const readKey = async (orgId: string, agentId: string, kid: string) =>
  (await getItem<AgentKeyItem>(ledgerKeys.key(orgId, agentId, kid))) ?? null;

/**
 * The agent and one of its keys as one snapshot (TransactGetItems): the key's status and the
 * agent's keys_version are read at the same instant, so a key change (which bumps
 * keys_version in the same transaction) can never pair an old key status with the new
 * version. The submission caches the key under that version (domain/ledger/submission-state.ts).
 */
export async function readAgentAndKey(orgId: string, agentId: string, kid: string): Promise<[AgentItem | null, AgentKeyItem | null]> {
  const out = await dynamo().send(
    new TransactGetCommand({
      TransactItems: [
        { Get: { TableName: table(), Key: ledgerKeys.agent(orgId, agentId) } },
        { Get: { TableName: table(), Key: ledgerKeys.key(orgId, agentId, kid) } },
      ],
    }),
  );
  const [agent, key] = out.Responses ?? [];
  return [agent?.Item ? strip<AgentItem>(agent.Item, INDEX_ATTRIBUTES) : null, key?.Item ? strip<AgentKeyItem>(key.Item) : null];
}

export async function listAgents(orgId: string): Promise<AgentItem[]> {
  const items = await queryAll(prefixQuery(`ORG#${orgId}`, ledgerKeys.agentPrefix));
  return items.map((item) => strip<AgentItem>(item, INDEX_ATTRIBUTES));
}

export async function listKeys(orgId: string, agentId: string): Promise<AgentKeyItem[]> {
  const items = await queryAll(prefixQuery(ledgerKeys.agentPartition(orgId, agentId), ledgerKeys.keyPrefix));
  return items.map((item) => strip<AgentKeyItem>(item)).sort((a, b) => a.created_at - b.created_at || a.kid.localeCompare(b.kid));
}

/**
 * Raises the agent's sealing fence to `until` (ledger-items.ts AgentItem.sealed_until): from
 * then on no operation with an earlier created_at can commit for it. Never lowers it. A
 * plain conditional write: it may meet a submission's transaction on the same item
 * (TransactionConflict), which the SDK's retries absorb.
 */
export async function raiseFence(orgId: string, agentId: string, until: number): Promise<void> {
  await writeIfCondition(() =>
    dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: ledgerKeys.agent(orgId, agentId),
        UpdateExpression: 'SET sealed_until = :until',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(sealed_until) OR sealed_until < :until)',
        ExpressionAttributeValues: { ':until': until },
      }),
    ),
  );
}

/**
 * Notes a kept refused attempt on the agent (ledger-items.ts AgentItem.last_attempt_at), never
 * moving it back. Only that attribute is written, and no submission conditions on it, so like
 * raiseFence it can at most meet a submission's transaction (TransactionConflict, which the
 * submission retries).
 */
export async function noteAttempt(orgId: string, agentId: string, at: number): Promise<void> {
  await writeIfCondition(() =>
    dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: ledgerKeys.agent(orgId, agentId),
        UpdateExpression: 'SET last_attempt_at = :at',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(last_attempt_at) OR last_attempt_at < :at)',
        ExpressionAttributeValues: { ':at': at },
      }),
    ),
  );
}

/**
 * The organizations with an agent whose last accepted operation falls in a window starting at
 * or after `since` (the agents' activity entries in gsi3, ledger-items.ts), each once.
 */
export async function activeOrganizations(since: number): Promise<string[]> {
  const shards = Array.from({ length: ACTIVITY_SHARDS }, (_, shard) => shard);
  const orgs = new Set<string>();
  await Promise.all(
    shards.map(async (shard) => {
      for await (const page of queryPages({
        IndexName: 'gsi3',
        KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk >= :since',
        ExpressionAttributeValues: { ':pk': `ACTIVE#${shard}`, ':since': padMs(since) },
      })) {
        // gsi3sk is `<window 13 digits>#<org>#<agent>`; neither id contains `#`.
        for (const item of page) orgs.add(String(item.gsi3sk).split('#')[1]!);
      }
    }),
  );
  return [...orgs];
}

/** user ids of the agent's assignments (identity-items.ts keeps them in the agent's partition). */
export async function listAssignedUsers(orgId: string, agentId: string): Promise<string[]> {
  const items = await queryAll(prefixQuery(ledgerKeys.agentPartition(orgId, agentId), 'ASSIGN#'));
  return items.map((item) => String(item.user_id));
}

/**
 * The agent-item condition of a change that ends keys at `endsAt` (a key event's time): every
 * operation the agent had accepted was created before it (ledger-items.ts AgentItem
 * latest_created_at). A submission that had not committed by then fails on keys_version, which
 * the same transaction bumps, so no record of an ended key is accepted after its end. False
 * when a record was accepted at or after `endsAt` meanwhile: the change takes a later time.
 */
const ACCEPTED_BEFORE_END = '(attribute_not_exists(latest_created_at) OR latest_created_at < :endsAt)';

const agentPut = (agent: AgentItem): TransactItem => ({
  Put: {
    TableName: table(),
    Item: { ...ledgerKeys.agent(agent.org_id, agent.agent_id), type: TYPE.agent, ...agent },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

const keyPut = (key: AgentKeyItem): TransactItem => ({
  Put: {
    TableName: table(),
    Item: { ...ledgerKeys.key(key.org_id, key.agent_id, key.kid), type: TYPE.key, ...key },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

type RegisterOutcome = 'registered' | 'exists' | 'deleted' | 'key_log_moved';

/**
 * Agent, keys, admin event and key events (`keyLog`, store/key-log.ts: last, so that the
 * reasons of the others keep their places) in one transaction; the id of a deleted agent
 * stays taken.
 */
export async function putNewAgent(agent: AgentItem, keys: AgentKeyItem[], event: TransactItem, keyLog: TransactItem[] = []): Promise<RegisterOutcome> {
  const result = await transact([
    agentPut(agent),
    {
      ConditionCheck: {
        TableName: table(),
        Key: ledgerKeys.tombstone(agent.org_id, agent.agent_id),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...keys.map(keyPut),
    event,
    ...keyLog,
  ]);
  if (result.committed) return 'registered';
  if (result.reasons[0]?.code === CONDITION_FAILED) return 'exists';
  if (result.reasons[1]?.code === CONDITION_FAILED) return 'deleted';
  // Another key change took the key history's next index (or raced it): read the head again.
  if (keyLog.length > 0 && result.reasons.slice(result.reasons.length - keyLog.length).some((r) => r.code !== 'None')) return 'key_log_moved';
  return 'exists'; // a concurrent registration of the same id (TransactionConflict)
}

/** Sets plain attributes of an existing agent (PATCH); a null value removes nothing, it is stored as null. */
export async function updateAgentFields(
  orgId: string,
  agentId: string,
  fields: Record<string, string | number | null>,
  event: TransactItem,
): Promise<boolean> {
  const names = Object.keys(fields);
  const result = await transact([
    {
      Update: {
        TableName: table(),
        Key: ledgerKeys.agent(orgId, agentId),
        UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, fields[name]])),
      },
    },
    event,
  ]);
  return result.committed;
}

interface StatusChange {
  orgId: string;
  agentId: string;
  from: AgentStatus;
  to: AgentStatus;
  now: number;
  /** The keys_version the caller read; required when keys change with the status, so none is missed. */
  keysVersion: number;
  /** Keys to revoke in the same transaction (agent revocation), their revoke events at `now`. */
  revokeKeys: AgentKeyItem[];
  event: TransactItem;
  /** the revoked keys' events (store/key-log.ts) */
  keyLog?: TransactItem[];
}

/** Moves an agent from `from` to `to` (and revokes `revokeKeys`) if it is still in `from`. */
export async function changeAgentStatus(change: StatusChange): Promise<boolean> {
  const bumpKeys = change.revokeKeys.length > 0;
  const items: TransactItem[] = [
    {
      Update: {
        TableName: table(),
        Key: ledgerKeys.agent(change.orgId, change.agentId),
        UpdateExpression: `SET #status = :to, updated_at = :now${bumpKeys ? ', keys_version = keys_version + :one' : ''}`,
        ConditionExpression: `#status = :from AND keys_version = :kv${bumpKeys ? ` AND ${ACCEPTED_BEFORE_END}` : ''}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':to': change.to,
          ':from': change.from,
          ':now': change.now,
          ':kv': change.keysVersion,
          ...(bumpKeys ? { ':one': 1, ':endsAt': change.now } : {}),
        },
      },
    },
    ...change.revokeKeys.map((key) => keyStatusUpdate(key, 'revoked', key.retired_at ?? change.now)),
    change.event,
    ...(change.keyLog ?? []),
  ];
  return (await transact(items)).committed;
}

function keyStatusUpdate(key: AgentKeyItem, to: AgentKeyItem['status'], retiredAt: number): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: ledgerKeys.key(key.org_id, key.agent_id, key.kid),
      UpdateExpression: 'SET #status = :to, retired_at = :retired',
      ConditionExpression: '#status = :from',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':to': to, ':from': key.status, ':retired': retiredAt },
    },
  };
}

/**
 * keys_version + 1 on the agent: in-flight submissions conditioned on the old value fail and
 * re-check their key. `condition` adds to the agent's existence, with its values.
 */
function bumpKeysVersion(orgId: string, agentId: string, condition?: { expression: string; names?: Record<string, string>; values: Record<string, unknown> }): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: ledgerKeys.agent(orgId, agentId),
      UpdateExpression: 'SET keys_version = keys_version + :one',
      ConditionExpression: `attribute_exists(pk)${condition ? ` AND ${condition.expression}` : ''}`,
      ExpressionAttributeValues: { ':one': 1, ...condition?.values },
      ...(condition?.names ? { ExpressionAttributeNames: condition.names } : {}),
    },
  };
}

/**
 * Revokes or retires one key if it is still in the status the caller read, its key event at
 * `endsAt`; false too when the agent accepted a record at or after `endsAt` (ACCEPTED_BEFORE_END).
 */
export async function changeKeyStatus(
  key: AgentKeyItem,
  to: 'revoked' | 'retired',
  change: { retiredAt: number; endsAt: number },
  event: TransactItem,
  keyLog: TransactItem[] = [],
): Promise<boolean> {
  const ended = bumpKeysVersion(key.org_id, key.agent_id, { expression: ACCEPTED_BEFORE_END, values: { ':endsAt': change.endsAt } });
  const result = await transact([keyStatusUpdate(key, to, change.retiredAt), ended, event, ...keyLog]);
  return result.committed;
}

type AddKeyOutcome = 'added' | 'kid_taken' | 'agent_unavailable';

/** Adds a key to an agent that exists and is not revoked; a kid is never reused, even after revocation. */
export async function putNewKey(key: AgentKeyItem, event: TransactItem, keyLog: TransactItem[] = []): Promise<AddKeyOutcome> {
  const notRevoked = { expression: '#status <> :revoked', names: { '#status': 'status' }, values: { ':revoked': 'revoked' } };
  const result = await transact([keyPut(key), bumpKeysVersion(key.org_id, key.agent_id, notRevoked), event, ...keyLog]);
  if (result.committed) return 'added';
  if (result.reasons[0]?.code === CONDITION_FAILED) return 'kid_taken';
  return 'agent_unavailable';
}

interface AgentDeletion {
  agent: AgentItem;
  keys: AgentKeyItem[];
  assignedUserIds: string[];
  actor: string;
  /** When the agent and its keys end: the `delete` events' time (ACCEPTED_BEFORE_END). */
  now: number;
  event: TransactItem;
  /** a `delete` event per key (store/key-log.ts) */
  keyLog?: TransactItem[];
}

/**
 * Deletes the agent, its keys and its assignments, and leaves a tombstone holding the final
 * chain head. The operations stay (they are evidence and still verify: each row keeps the
 * public key it was signed with); the tombstone keeps the agent_id from being reused, so an
 * agent_id in the ledger always names one chain. Conditioned on keys_version so a key added
 * concurrently cannot survive its agent, and on ACCEPTED_BEFORE_END (no record of its keys
 * accepted at or after `now`).
 */
export async function deleteAgentItems(deletion: AgentDeletion): Promise<boolean> {
  const { agent, keys, assignedUserIds } = deletion;
  const items: TransactItem[] = [
    {
      Delete: {
        TableName: table(),
        Key: ledgerKeys.agent(agent.org_id, agent.agent_id),
        ConditionExpression: `keys_version = :kv AND ${ACCEPTED_BEFORE_END}`,
        ExpressionAttributeValues: { ':kv': agent.keys_version, ':endsAt': deletion.now },
      },
    },
    {
      Put: {
        TableName: table(),
        Item: {
          ...ledgerKeys.tombstone(agent.org_id, agent.agent_id),
          type: TYPE.tombstone,
          agent_id: agent.agent_id,
          org_id: agent.org_id,
          deleted_at: deletion.now,
          deleted_by: deletion.actor,
          seq_no: agent.seq_no,
          chain_hash: agent.chain_hash,
          head_operation_id: agent.head_operation_id,
        },
      },
    },
    ...keys.map((key) => ({ Delete: { TableName: table(), Key: ledgerKeys.key(key.org_id, key.agent_id, key.kid) } })),
    ...assignedUserIds.map((userId) => ({
      // Conditioned so that an assignment removed concurrently is not counted down twice.
      Delete: {
        TableName: table(),
        Key: identityKeys.assignment(agent.org_id, agent.agent_id, userId),
        ConditionExpression: 'attribute_exists(pk)',
      },
    })),
    ...(assignedUserIds.length > 0
      ? [
          {
            // The org's assignment count drives the read_all rule (identity-items.ts OrgItem).
            Update: {
              TableName: table(),
              Key: identityKeys.org(agent.org_id),
              UpdateExpression: 'ADD assignment_count :minus',
              ExpressionAttributeValues: { ':minus': -assignedUserIds.length },
            },
          },
        ]
      : []),
    deletion.event,
    ...(deletion.keyLog ?? []),
  ];
  return (await transact(items)).committed;
}

