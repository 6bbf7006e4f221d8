/**
 * The single DynamoDB table (DESIGN.md, Data): generic key names so every entity type
 * shares one table and three overloaded global secondary indexes. CDK (lib/data.ts) and
 * the local stack (which creates the table in DynamoDB Local) both build the table from
 * this one description, so they cannot drift.
 *
 * Tenancy is in the key: every partition key value starts with `ORG#<org_id>` except the
 * few global lookups (user by email, token by hash), whose items then carry the org.
 */
export const TABLE_DESIGN = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Items with this attribute (Unix seconds) are removed by DynamoDB TTL: sessions, counters. */
  ttlAttribute: 'expires_at_s',
  globalIndexes: [
    /** Lookups by a unique id: operation by operation_id, token by hash, user by email, ... */
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    /** Organization-wide time order: operations by created_at, admin events, epochs. */
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    /** Sparse: operations not yet sealed into an epoch, by organization and time; epochs with follow-ups left (store/epochs.ts). */
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ],
} as const;

export type IndexName = (typeof TABLE_DESIGN.globalIndexes)[number]['name'];
