/**
 * A DynamoDB Streams record in the shape Lambda hands a stream-triggered function (aws-lambda
 * DynamoDBRecord): used by `npm start`'s stream poller and by the deploy rehearsal's triggers,
 * so both feed the workers the same event.
 */
import type { _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';

export function toLambdaRecord(record: StreamRecord, streamArn: string, region: string): DynamoDBRecord {
  const data = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(data.ApproximateCreationDateTime ? { ApproximateCreationDateTime: data.ApproximateCreationDateTime.getTime() / 1000 } : {}),
      Keys: data.Keys as never,
      ...(data.NewImage ? { NewImage: data.NewImage as never } : {}),
      ...(data.OldImage ? { OldImage: data.OldImage as never } : {}),
      SequenceNumber: data.SequenceNumber,
      SizeBytes: data.SizeBytes,
      StreamViewType: data.StreamViewType as never,
    },
  };
}
