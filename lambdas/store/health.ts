/** Probes of the table and the data bucket for GET /v1/health/deep: the same clients and paths real requests use. */
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';
import { dynamo, s3 } from './clients.js';
import { table } from './dynamo.js';

/** A point read of a key that never exists. */
export async function pingTable(): Promise<void> {
  await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: 'HEALTH', sk: 'HEALTH' } }));
}

export async function pingDataBucket(): Promise<void> {
  await s3().send(new HeadBucketCommand({ Bucket: config().dataBucket }));
}
