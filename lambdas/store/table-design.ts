/**
 * The single DynamoDB table (DESIGN.md, Data): generic key names so every entity type
 * shares one table and three overloaded global secondary indexes. CDK (lib/data.ts) and
 * the local stack (which creates the table in DynamoDB Local) both build the table from
 * this one description, so they cannot drift.
 *
 * Tenancy is in the key: every partition key value starts with `ORG#<org_id>` except the
 * few global lookups (user by email, token by hash), whose items then carry the org.
 */
import { STORED_ROW_FIELDS } from '@agent-ledger/protocol';
/**
 * The stored operation row's members (SPEC.md §2.2) other than the index keys: what the audit
 * indexes carry, so that an audit page is read from the index alone, while the sealer's and
 * the receipt's later updates of a row (epoch_id, leaf_index, queue_message_id, ...) touch
 * attributes these indexes do not hold and therefore cost them no write.
 */
const STORED_ROW_ATTRIBUTES = STORED_ROW_FIELDS;

/** What an index holds besides its keys: every attribute, or the ones listed. */
export type IndexProjection = 'all' | { include: readonly string[] };

export const TABLE_DESIGN = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Items with this attribute (Unix seconds) are removed by DynamoDB TTL: sessions, counters. */
  ttlAttribute: 'expires_at_s',
  globalIndexes: [
    /** Lookups by a unique id: operation by operation_id, token by hash, user by email, ... */
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'all' },
    /** Organization-wide time order: operations by created_at (the audit query without agent or type filter). */
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'all' },
    /** Sparse: operations not yet sealed into an epoch, by organization and time; epochs with follow-ups left (store/epochs.ts). */
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: 'all' },
    /**
     * The audit query's filters (SPEC.md §4.6), each a time-ordered Query of its own
     * partition (store/operation-index.ts): one agent's operations, one operation type's,
     * and one agent's of one type.
     */
    { name: 'ops_by_agent', partitionKey: 'oa_pk', sortKey: 'oa_sk', projection: { include: STORED_ROW_ATTRIBUTES } },
    { name: 'ops_by_type', partitionKey: 'ot_pk', sortKey: 'ot_sk', projection: { include: STORED_ROW_ATTRIBUTES } },
    { name: 'ops_by_agent_type', partitionKey: 'oat_pk', sortKey: 'oat_sk', projection: { include: STORED_ROW_ATTRIBUTES } },
  ],
} as const satisfies {
  partitionKey: string;
  sortKey: string;
  ttlAttribute: string;
  globalIndexes: readonly { name: string; partitionKey: string; sortKey: string; projection: IndexProjection }[];
};

export type IndexName = (typeof TABLE_DESIGN.globalIndexes)[number]['name'];
