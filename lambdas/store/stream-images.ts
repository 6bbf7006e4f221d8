/**
 * The table's stream records (TABLE_DESIGN.stream, new images) as plain items: the one place
 * that reads DynamoDB's attribute-value format of a stream record, so the outbox forwarder
 * (lambdas/workers/forward-events.ts) deals in items only.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** The part of a stream record (Lambda's DynamoDBRecord, or a local poller's) this reads. */
interface StreamRecordImage {
  eventName?: string;
  dynamodb?: { NewImage?: Record<string, unknown> };
}

/** The item a stream record inserted, or null for a modify, a removal or a record without a new image. */
export function insertedItem(record: StreamRecordImage): Record<string, unknown> | null {
  if (record.eventName !== 'INSERT' || !record.dynamodb?.NewImage) return null;
  return unmarshall(record.dynamodb.NewImage as Record<string, AttributeValue>);
}
