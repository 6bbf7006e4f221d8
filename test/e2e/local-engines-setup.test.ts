/**
 * The local stack's storage pieces against the engines of the test run (test/global-setup.ts):
 * s3rver keeps bytes exactly with the client settings the handlers use, the table is built
 * from TABLE_DESIGN, and the key files have the formats and modes the file signer and
 * encryptor expect (docs/ARCHITECTURE.md, Local stack).
 */
import { DeleteTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand, PutItemCommand, QueryCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPrivateKey, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_DESIGN } from '../../lambdas/store/table-design.js';
import { ensureLocalKeys, SECRETS_KEY_FILE, SIGNER_KEY_FILE } from '../../local/keys.js';
import { ensureBuckets, localS3ClientConfig } from '../../local/s3-local.js';
import { ensureTable } from '../../local/table.js';
import { testDynamoClient, testEndpoints, testS3Client } from '../support/aws-clients.js';

describe('s3rver with the local client settings', () => {
  const s3 = testS3Client();
  const bucket = `storage-test-${randomUUID().slice(0, 8)}`;
  beforeAll(() => ensureBuckets(s3, [bucket]));
  afterAll(() => s3.destroy());

  async function roundTrip(key: string, body: PutObjectCommand['input']['Body'], contentLength?: number): Promise<Buffer> {
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: body,
        ContentType: 'application/octet-stream',
        ...(contentLength === undefined ? {} : { ContentLength: contentLength }),
      }),
    );
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(object.ContentType).toBe('application/octet-stream');
    return Buffer.from(await object.Body!.transformToByteArray());
  }

  it('round-trips binary bytes exactly', async () => {
    const bytes = randomBytes(64 * 1024);
    expect((await roundTrip('binary', bytes)).equals(bytes)).toBe(true);
  });

  it('round-trips a streamed upload without chunk framing', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const stream = Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]);
    const back = await roundTrip('streamed', stream, bytes.length);
    // Buffer.equals, not toEqual: a deep comparison of 3 MiB element by element takes seconds.
    expect(back.length).toBe(bytes.length);
    expect(back.equals(bytes)).toBe(true);
  });

  it('round-trips text and an empty body', async () => {
    expect((await roundTrip('text', 'zoë ✓')).toString('utf8')).toBe('zoë ✓');
    expect(await roundTrip('empty', Buffer.alloc(0))).toEqual(Buffer.alloc(0));
  });

  it('accepts any access key (the handlers sign with whatever the environment holds)', async () => {
    const other = new S3Client({
      ...localS3ClientConfig(testEndpoints().s3Endpoint),
      credentials: { accessKeyId: 'AKIAOTHERKEY', secretAccessKey: 'whatever' },
    });
    try {
      await other.send(new PutObjectCommand({ Bucket: bucket, Key: 'other-key', Body: 'x' }));
      const object = await other.send(new GetObjectCommand({ Bucket: bucket, Key: 'other-key' }));
      expect(await object.Body!.transformToString()).toBe('x');
    } finally {
      other.destroy();
    }
  });

  it('has no CORS configuration: browser preflights are refused', async () => {
    const response = await fetch(`${testEndpoints().s3Endpoint}/${bucket}/binary`, {
      method: 'OPTIONS',
      headers: { origin: 'https://example.com', 'access-control-request-method': 'GET' },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('ensureTable', () => {
  const dynamo = testDynamoClient();
  const tableName = `table-test-${randomUUID().slice(0, 8)}`;
  afterAll(async () => {
    await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => {});
    dynamo.destroy();
  });

  it('creates the table of TABLE_DESIGN once, then leaves it alone', async () => {
    expect(await ensureTable(dynamo, tableName)).toBe(true);
    expect(await ensureTable(dynamo, tableName)).toBe(false);
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    const indexes = (Table?.GlobalSecondaryIndexes ?? []).map((index) => ({
      name: index.IndexName,
      keys: index.KeySchema?.map((key) => key.AttributeName),
      projection: index.Projection?.ProjectionType,
    }));
    expect(indexes.sort((a, b) => String(a.name).localeCompare(String(b.name)))).toEqual(
      TABLE_DESIGN.globalIndexes
        .map((index) => ({
          name: index.name,
          keys: [index.partitionKey, index.sortKey],
          projection: index.projection.type,
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    );
    const ttl = await dynamo.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    expect(ttl.TimeToLiveDescription).toMatchObject({
      AttributeName: TABLE_DESIGN.ttlAttribute,
      TimeToLiveStatus: 'ENABLED',
    });
  });

  it('gives a table kept from an older version the index it lacks, filled from the items already there', async () => {
    // An older `.ledger/` table: made before the type index existed, with an operation in it.
    await dynamo.send(new UpdateTableCommand({ TableName: tableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'ops_by_type' } }] }));
    // Deleting an index takes a moment (DELETING), in DynamoDB Local as in AWS.
    const indexNames = async () => ((await dynamo.send(new DescribeTableCommand({ TableName: tableName }))).Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName);
    for (const deadline = Date.now() + 30_000; (await indexNames()).includes('ops_by_type'); await new Promise((resolve) => setTimeout(resolve, 100))) {
      if (Date.now() > deadline) throw new Error('ops_by_type still there after 30 s');
    }
    const item = { pk: { S: 'ORG#o#OP#1' }, sk: { S: 'OP' }, ot_pk: { S: 'ORG#o#TYPE#file.edit#0' }, gsi2sk: { S: '0000000000001#1' } };
    await dynamo.send(new PutItemCommand({ TableName: tableName, Item: item }));

    expect(await ensureTable(dynamo, tableName)).toBe(false);
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === 'ops_by_type')?.IndexStatus).toBe('ACTIVE');
    const found = await dynamo.send(
      new QueryCommand({ TableName: tableName, IndexName: 'ops_by_type', KeyConditionExpression: 'ot_pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'ORG#o#TYPE#file.edit#0' } } }),
    );
    expect(found.Items?.map((entry) => entry.pk?.S)).toEqual(['ORG#o#OP#1']);
  });
});

describe('ensureLocalKeys', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ledger-keys-test-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('creates an Ed25519 PKCS#8 PEM and 32 raw bytes, mode 0600 in a 0700 directory', async () => {
    const keysDir = join(dir, 'fresh', 'keys');
    const keys = await ensureLocalKeys(keysDir);
    expect(keys).toEqual({ signerKeyFile: join(keysDir, SIGNER_KEY_FILE), secretsKeyFile: join(keysDir, SECRETS_KEY_FILE) });
    const pem = await readFile(keys.signerKeyFile, 'utf8');
    expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(createPrivateKey(pem).asymmetricKeyType).toBe('ed25519');
    expect((await readFile(keys.secretsKeyFile)).length).toBe(32);
    expect((await stat(keys.signerKeyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(keys.secretsKeyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(keysDir)).mode & 0o777).toBe(0o700);
  });

  it('reuses existing keys', async () => {
    const keysDir = join(dir, 'reused');
    const first = await ensureLocalKeys(keysDir);
    const pem = await readFile(first.signerKeyFile, 'utf8');
    const aes = await readFile(first.secretsKeyFile);
    const second = await ensureLocalKeys(keysDir);
    expect(await readFile(second.signerKeyFile, 'utf8')).toBe(pem);
    expect(await readFile(second.secretsKeyFile)).toEqual(aes);
  });

  it('refuses a damaged key file instead of replacing it', async () => {
    const keysDir = join(dir, 'damaged');
    const keys = await ensureLocalKeys(keysDir);
    await writeFile(keys.secretsKeyFile, Buffer.alloc(16));
    await expect(ensureLocalKeys(keysDir)).rejects.toThrow(/not a 32-byte AES-256 key/);
    expect((await readFile(keys.secretsKeyFile)).length).toBe(16);
  });
});
