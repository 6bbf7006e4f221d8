/**
 * Creates the ledger table in DynamoDB Local from TABLE_DESIGN, the description CDK builds
 * the AWS table from (docs/ARCHITECTURE.md, Data), so the two cannot drift. Idempotent: an existing
 * table keeps its data across `npm start` restarts, and gets what a newer TABLE_DESIGN added
 * since it was made (its stream, its missing indexes), as `cdk deploy` gives the AWS table.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type DynamoDBClient,
  type Projection,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { TABLE_DESIGN, type IndexProjection } from '../lambdas/store/table-design.js';

async function describe(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

function projection(spec: IndexProjection): Projection {
  return 'attributes' in spec ? { ProjectionType: spec.type, NonKeyAttributes: [...spec.attributes] } : { ProjectionType: spec.type };
}

const STREAM = { StreamEnabled: true, StreamViewType: TABLE_DESIGN.stream };

type IndexSpec = (typeof TABLE_DESIGN.globalIndexes)[number];

function indexDefinition(index: IndexSpec) {
  return {
    IndexName: index.name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: projection(index.projection),
  };
}

/** Every key attribute of the table and its indexes: all strings. */
function keyAttributes(): AttributeDefinition[] {
  const keyNames = new Set<string>([TABLE_DESIGN.partitionKey, TABLE_DESIGN.sortKey]);
  for (const index of TABLE_DESIGN.globalIndexes) {
    keyNames.add(index.partitionKey);
    keyNames.add(index.sortKey);
  }
  return [...keyNames].map((name) => ({ AttributeName: name, AttributeType: 'S' }));
}

/** How long a new index of a kept table may take to fill from its items. */
const INDEX_BUILD_TIMEOUT_MS = 120_000;

/**
 * Adds the indexes TABLE_DESIGN has and a kept table lacks (made by an older version), one at
 * a time as DynamoDB requires, each filled from the items already there before the next.
 */
async function addMissingIndexes(client: DynamoDBClient, tableName: string, existing: TableDescription): Promise<void> {
  const present = new Set((existing.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of TABLE_DESIGN.globalIndexes.filter((spec) => !present.has(spec.name))) {
    await client.send(
      new UpdateTableCommand({ TableName: tableName, AttributeDefinitions: keyAttributes(), GlobalSecondaryIndexUpdates: [{ Create: indexDefinition(index) }] }),
    );
    for (const deadline = Date.now() + INDEX_BUILD_TIMEOUT_MS; ; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const status = (await describe(client, tableName))?.GlobalSecondaryIndexes?.find((found) => found.IndexName === index.name)?.IndexStatus;
      if (status === 'ACTIVE') break;
      if (Date.now() > deadline) throw new Error(`index ${index.name} of ${tableName} is still ${status ?? 'missing'} after ${INDEX_BUILD_TIMEOUT_MS / 1000} s`);
    }
  }
}

/**
 * Creates `tableName` if missing; returns whether it did. A table kept from an older version
 * gets what it lacks: its stream (the events outbox) and its missing indexes.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<boolean> {
  const existing = await describe(client, tableName);
  if (existing) {
    if (!existing.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: STREAM }));
    }
    await addMissingIndexes(client, tableName, existing);
    return false;
  }
  const attributes = keyAttributes();
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributes,
        KeySchema: [
          { AttributeName: TABLE_DESIGN.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_DESIGN.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE_DESIGN.globalIndexes.map(indexDefinition),
        StreamSpecification: STREAM,
      }),
    );
  } catch (error) {
    // Another process created it between our check and our create: fine.
    if (error instanceof ResourceInUseException) return false;
    throw error;
  }
  try {
    // DynamoDB Local accepts the TTL setting. Deletion is lazy there as in AWS (where it can lag
    // by days), so readers must treat an expired item as absent either way.
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE_DESIGN.ttlAttribute, Enabled: true },
      }),
    );
  } catch {
    // TTL is an optimization of storage, not of behaviour; a local table works without it.
  }
  return true;
}
