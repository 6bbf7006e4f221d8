/**
 * Creates the ledger table in DynamoDB Local from TABLE_DESIGN, the description CDK builds
 * the AWS table from (DESIGN.md, Data), so the two cannot drift. Idempotent: an existing
 * table is left as it is, which is what keeps data across `npm start` restarts.
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

/**
 * Creates `tableName` if missing; returns whether it did. A table kept from before the table
 * had its stream (the events outbox) gets it now; its indexes stay as they were created.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<boolean> {
  const existing = await describe(client, tableName);
  if (existing) {
    if (!existing.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: STREAM }));
    }
    return false;
  }
  const keyNames = new Set<string>([TABLE_DESIGN.partitionKey, TABLE_DESIGN.sortKey]);
  for (const index of TABLE_DESIGN.globalIndexes) {
    keyNames.add(index.partitionKey);
    keyNames.add(index.sortKey);
  }
  const attributes: AttributeDefinition[] = [...keyNames].map((name) => ({ AttributeName: name, AttributeType: 'S' }));
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
        GlobalSecondaryIndexes: TABLE_DESIGN.globalIndexes.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: projection(index.projection),
        })),
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
