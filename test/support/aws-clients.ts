/**
 * SDK clients for the test run's DynamoDB Local and s3rver (started once by
 * test/global-setup.ts), configured as the local stack configures the handlers' clients.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { inject } from 'vitest';
import { localDynamoClient } from '../../local/dynamodb-local.js';
import { localS3Client } from '../../local/s3-local.js';

/** The endpoints test/global-setup.ts provides; a clear error when it is not configured. */
export function testEndpoints(): { dynamoEndpoint: string; s3Endpoint: string } {
  const dynamoEndpoint = inject('dynamoEndpoint');
  const s3Endpoint = inject('s3Endpoint');
  if (!dynamoEndpoint || !s3Endpoint) {
    throw new Error("no local engines: vitest.config.ts must have test.globalSetup: ['./test/global-setup.ts']");
  }
  return { dynamoEndpoint, s3Endpoint };
}

export function testDynamoClient(): DynamoDBClient {
  return localDynamoClient(testEndpoints().dynamoEndpoint);
}

export function testDocumentClient(): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(testDynamoClient(), { marshallOptions: { removeUndefinedValues: true } });
}

export function testS3Client(): S3Client {
  return localS3Client(testEndpoints().s3Endpoint);
}
