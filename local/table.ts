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
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { TABLE_DESIGN } from '../lambdas/store/table-design.js';

async function tableExists(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return false;
    throw error;
  }
}

/** Creates `tableName` if missing; returns whether it did. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<boolean> {
  if (await tableExists(client, tableName)) return false;
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
          Projection: index.projection === 'all' ? { ProjectionType: 'ALL' } : { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection.include] },
        })),
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
