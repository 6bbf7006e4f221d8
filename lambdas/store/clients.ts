/**
 * The store's SDK clients, one of each per process, created on first use at module scope
 * (docs/ARCHITECTURE.md, Conventions) from the configuration: the real services in AWS, DynamoDB Local
 * and s3rver when `config.ts` names local endpoints. Each has the timeouts and retries of
 * sdk-client-settings.ts and is wrapped by the tracer, so X-Ray shows every table and
 * bucket call of a request.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../config.js';
import { sdkClientSettings } from '../sdk-client-settings.js';
import { once } from '../shared/once.js';
import { traced } from '../tracer.js';

/** Local engines accept any credentials; the SDK still wants some. */
export function localCredentials(endpoint: string | undefined) {
  return endpoint && !process.env.AWS_ACCESS_KEY_ID
    ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : {};
}

export const dynamo = /* @__PURE__ */ once(() => {
  const { region, dynamoEndpoint, stage } = config();
  const client = traced(
    new DynamoDBClient({
      region,
      ...sdkClientSettings(stage),
      ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}),
      ...localCredentials(dynamoEndpoint),
    }),
  );
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
});

export const s3 = /* @__PURE__ */ once(() => {
  const { region, s3Endpoint, stage } = config();
  return traced(
    new S3Client({
      region,
      ...sdkClientSettings(stage, 'objects'),
      ...(s3Endpoint
        ? {
            endpoint: s3Endpoint,
            // s3rver needs path-style addressing, and stores aws-chunked framing verbatim unless
            // checksums are only computed when an operation requires them.
            forcePathStyle: true,
            requestChecksumCalculation: 'WHEN_REQUIRED',
            responseChecksumValidation: 'WHEN_REQUIRED',
          }
        : {}),
      ...localCredentials(s3Endpoint),
    }),
  );
});
