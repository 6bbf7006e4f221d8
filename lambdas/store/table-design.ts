/**
 * The single DynamoDB table (docs/ARCHITECTURE.md, Data): generic key names so every entity type
 * shares one table, three overloaded global secondary indexes and the audit query's three. CDK (lib/data.ts) and
 * the local stack (which creates the table in DynamoDB Local) both build the table from
 * this one description, so they cannot drift.
 *
 * Tenancy is in the key: every partition key value starts with `ORG#<org_id>` except the
 * few global lookups (user by email, token by hash), whose items then carry the org.
 *
 * Projections (docs/COST.md, Indexes): an index entry is written, and paid for, whenever an
 * item it projects is written, so an index projects only what its readers use. gsi1's
 * readers list whole invitations and assignments (ALL); gsi2 is the operations' time
 * index, whose readers (the sealer, audit and export queries) need the leaf fields and the
 * filter fields and read whole rows by key when they need more; ops_by_time is the same
 * order with the stored rows projected, so an audit page is one read; gsi3 lists agents by their
 * last active window and epochs by follow-up stage, by key only.
 */
import { STORED_ROW_FIELDS } from '@agent-ledger/protocol';

/**
 * The operations' time index with the stored rows themselves (docs/API.md §2.2, the 17 fields;
 * store_payload_key is only on rows written before payload keys were derived): an unfiltered
 * audit page reads its rows from the index in one round of Queries instead of the positions
 * from gsi2 and then the rows by key (store/operation-index.ts). It shares gsi2's keys, so
 * the rows carry nothing new and DynamoDB backfills it from the rows already stored; each
 * accepted operation pays one more index write (docs/COST.md, Indexes).
 */
export const OPS_ROWS_INDEX = {
  name: 'ops_by_time',
  partitionKey: 'gsi2pk',
  sortKey: 'gsi2sk',
  projection: { type: 'INCLUDE', attributes: STORED_ROW_FIELDS },
} as const;

export const TABLE_DESIGN = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Items with this attribute (Unix seconds) are removed by DynamoDB TTL: sessions, counters. */
  ttlAttribute: 'expires_at_s',
  /**
   * The table's stream (DynamoDB Streams, new images): the transactional outbox of the events
   * queue (lambdas/workers/forward-events.ts): an accepted operation and a new epoch each
   * become their event from the stream record of the item that commits them.
   */
  stream: 'NEW_IMAGE',
  globalIndexes: [
    /** Lookups by a unique id: invitations by invitee, assignments by user. */
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: { type: 'ALL' } },
    /** Operations of an organization in (created_at, operation_id) order, sharded by agent (ledger-items.ts). */
    {
      name: 'gsi2',
      partitionKey: 'gsi2pk',
      sortKey: 'gsi2sk',
      projection: { type: 'INCLUDE', attributes: ['operation_id', 'created_at', 'chain_hash', 'agent_id', 'operation_type'] },
    },
    /** Sparse: agents by their last active epoch window; epochs with follow-ups left (store/epochs.ts). */
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: { type: 'KEYS_ONLY' } },
    /**
     * The audit query's filters (docs/API.md §4.6), each a time-ordered Query of its own
     * partition (store/operation-index.ts): one agent's operations, one operation type's,
     * and one agent's of one type. Keys only: the sort key names the operation, the page's
     * rows are read by key, and each submission pays one small entry per index. They share
     * gsi2's sort key (`<created_at>#<operation_id>`), so the row carries it once.
     */
    { name: 'ops_by_agent', partitionKey: 'oa_pk', sortKey: 'gsi2sk', projection: { type: 'KEYS_ONLY' } },
    { name: 'ops_by_type', partitionKey: 'ot_pk', sortKey: 'gsi2sk', projection: { type: 'KEYS_ONLY' } },
    { name: 'ops_by_agent_type', partitionKey: 'oat_pk', sortKey: 'gsi2sk', projection: { type: 'KEYS_ONLY' } },
    OPS_ROWS_INDEX,
  ],
} as const;

export type IndexName = (typeof TABLE_DESIGN.globalIndexes)[number]['name'];
export type IndexProjection = (typeof TABLE_DESIGN.globalIndexes)[number]['projection'];
