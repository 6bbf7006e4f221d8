/**
 * The e2e test stack (test/support/test-stack.ts) serves the real handlers on the run's
 * shared engines, with its own table, buckets and keys.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryQueue } from '../../lambdas/adapters/local/memory-queue.js';
import { TABLE_DESIGN } from '../../lambdas/store/table-design.js';
import { testDynamoClient, testS3Client } from '../support/aws-clients.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

let stack: TestStack;
const envBefore = { ...process.env };

beforeAll(async () => {
  stack = await startTestStack({ env: { LEDGER_EPOCH_MS: '60000' } });
});
afterAll(() => stack?.stop());

describe('startTestStack', () => {
  it('creates its own table and buckets', async () => {
    expect(stack.tableName).toMatch(/^ledger-test-[0-9a-f]{12}$/);
    const dynamo = testDynamoClient();
    const s3 = testS3Client();
    try {
      const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: stack.tableName }));
      expect(Table?.GlobalSecondaryIndexes).toHaveLength(TABLE_DESIGN.globalIndexes.length);
      for (const Bucket of [stack.dataBucket, stack.anchorsBucket]) {
        await expect(s3.send(new HeadBucketCommand({ Bucket }))).resolves.toBeDefined();
      }
    } finally {
      dynamo.destroy();
      s3.destroy();
    }
  });

  it('sets the handlers environment', () => {
    expect(process.env).toMatchObject({
      LEDGER_STAGE: 'local',
      LEDGER_TABLE: stack.tableName,
      LEDGER_DATA_BUCKET: stack.dataBucket,
      LEDGER_ANCHORS_BUCKET: stack.anchorsBucket,
      LEDGER_DYNAMODB_ENDPOINT: stack.dynamoEndpoint,
      LEDGER_S3_ENDPOINT: stack.s3Endpoint,
      LEDGER_QUEUE: 'memory',
      LEDGER_EPOCH_MS: '60000',
    });
  });

  it('shares the process-wide memory queue with the handlers', () => {
    expect(stack.queue).toBe(memoryQueue());
  });

  it('serves the real handlers', async () => {
    const health = await fetch(`${stack.baseUrl}/v1/health`);
    expect(health.status).toBe(200);
    const deep = await fetch(`${stack.baseUrl}/v1/health/deep`);
    expect(deep.status).toBe(200);
    const missing = await fetch(`${stack.baseUrl}/v1/nothing-here`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });

  it('signs with the key file it created', async () => {
    const pem = await readFile(process.env.LEDGER_SIGNER_KEY_FILE!, 'utf8');
    const x = createPublicKey(createPrivateKey(pem)).export({ format: 'jwk' }).x;
    const jwks = (await (await fetch(`${stack.baseUrl}/.well-known/service/jwks.json`)).json()) as { keys: { x: string }[] };
    expect(jwks.keys.map((key) => key.x)).toEqual([x]);
  });

  it('restores the environment on stop', async () => {
    await stack.stop();
    for (const name of ['LEDGER_TABLE', 'LEDGER_STAGE', 'LEDGER_EPOCH_MS']) {
      expect(process.env[name]).toBe(envBefore[name]);
    }
  });
});
