// The rehearsal's own parts, through the real AWS SDK clients the functions use: the KMS and
// SQS stand-ins answer on their wire protocols (the SDK checks SQS's MD5s, KMS signatures
// verify as Ed25519), and each request is named with the IAM action and resource IAM would
// authorize (scripts/rehearse/aws-requests.ts), the per-item actions of a transaction included.
import { createPublicKey, verify } from 'node:crypto';
import { DecryptCommand, DescribeKeyCommand, EncryptCommand, GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { GetQueueAttributesCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRequest } from '../../scripts/rehearse/aws-requests.js';
import { startKmsStandIn } from '../../scripts/rehearse/kms-standin.js';
import { SqsQueues, startSqsStandIn } from '../../scripts/rehearse/sqs-standin.js';
import { matchesFilter } from '../../scripts/rehearse/triggers.js';

const SIGNER = 'arn:aws:kms:eu-west-1:123456789012:key/11111111-1111-1111-1111-111111111111';
const SECRETS = 'arn:aws:kms:eu-west-1:123456789012:key/22222222-2222-2222-2222-222222222222';
const credentials = { accessKeyId: 'ASIATEST', secretAccessKey: 'test' };
const names = { keyArn: (id: string) => (id.startsWith('arn:') ? id : `arn:key/${id}`), queueArn: (url: string) => `arn:queue:${url.split('/').pop()}` };

describe('the KMS stand-in', () => {
  let kms: KMSClient;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const service = await startKmsStandIn([{ arn: SIGNER, spec: 'ECC_NIST_EDWARDS25519' }, { arn: SECRETS, spec: 'SYMMETRIC_DEFAULT' }]);
    stop = service.stop;
    kms = new KMSClient({ endpoint: service.endpoint, region: 'eu-west-1', credentials });
  });
  afterAll(async () => {
    kms.destroy();
    await stop();
  });

  it('signs RAW messages with Ed25519 that verify against the public key it hands out', async () => {
    const message = Buffer.from('receipt bytes');
    const signed = await kms.send(new SignCommand({ KeyId: SIGNER, Message: message, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' }));
    const { PublicKey } = await kms.send(new GetPublicKeyCommand({ KeyId: SIGNER }));
    const publicKey = createPublicKey({ key: Buffer.from(PublicKey!), format: 'der', type: 'spki' });
    expect(verify(null, message, publicKey, Buffer.from(signed.Signature!))).toBe(true);
    expect(verify(null, Buffer.from('other bytes'), publicKey, Buffer.from(signed.Signature!))).toBe(false);
  });

  it('decrypts only under the encryption context it encrypted with, and refuses an unknown key', async () => {
    const { CiphertextBlob } = await kms.send(new EncryptCommand({ KeyId: SECRETS, Plaintext: Buffer.from('whsec'), EncryptionContext: { webhook: 'w1' } }));
    const { Plaintext } = await kms.send(new DecryptCommand({ KeyId: SECRETS, CiphertextBlob, EncryptionContext: { webhook: 'w1' } }));
    expect(Buffer.from(Plaintext!).toString()).toBe('whsec');
    await expect(kms.send(new DecryptCommand({ KeyId: SECRETS, CiphertextBlob, EncryptionContext: { webhook: 'w2' } }))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    await expect(kms.send(new DescribeKeyCommand({ KeyId: 'arn:aws:kms:eu-west-1:123456789012:key/nope' }))).rejects.toMatchObject({ name: 'NotFoundException' });
    await expect(kms.send(new SignCommand({ KeyId: SIGNER, Message: Buffer.from('x'), MessageType: 'DIGEST', SigningAlgorithm: 'ED25519_SHA_512' }))).rejects.toMatchObject({ name: 'ValidationException' });
  });
});

describe('the SQS stand-in', () => {
  it('takes single and batch sends with the MD5s the SDK checks, hands batches out and dead-letters after maxReceiveCount', async () => {
    const url = (name: string) => `http://127.0.0.1:1/123456789012/${name}`;
    const queues = new SqsQueues([
      { logicalId: 'Q', name: 'q', arn: 'arn:q', url: url('q'), visibilityTimeoutSeconds: 30, deadLetter: { arn: 'arn:dlq', maxReceiveCount: 2 } },
      { logicalId: 'D', name: 'dlq', arn: 'arn:dlq', url: url('dlq'), visibilityTimeoutSeconds: 30, deadLetter: undefined },
    ]);
    const service = await startSqsStandIn(queues);
    const sqs = new SQSClient({ endpoint: service.endpoint, region: 'eu-west-1', credentials, useQueueUrlAsEndpoint: false });
    try {
      expect((await sqs.send(new SendMessageCommand({ QueueUrl: url('q'), MessageBody: '{"a":"é"}' }))).MessageId).toBeTruthy();
      const batch = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url('q'), Entries: [{ Id: '0', MessageBody: 'b' }, { Id: '1', MessageBody: 'c' }] }));
      expect(batch.Successful?.map((entry) => entry.Id)).toEqual(['0', '1']);
      expect((await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url('q'), AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn).toBe('arn:q');
      await expect(sqs.send(new SendMessageCommand({ QueueUrl: url('nope'), MessageBody: 'x' }))).rejects.toThrow(/does not exist/);

      const first = queues.receive('arn:q', 10);
      expect(first.map((message) => message.body)).toEqual(['{"a":"é"}', 'b', 'c']);
      expect(queues.receive('arn:q', 10)).toEqual([]); // in flight
      for (const message of first) queues.release(message, 0);
      queues.delete('arn:q', first[1]!);
      queues.delete('arn:q', first[2]!);
      queues.release(queues.receive('arn:q', 10)[0]!, 0); // received twice now
      expect(queues.receive('arn:q', 10)).toEqual([]); // the third receive moves it to the dead letters
      expect(queues.receive('arn:dlq', 10).map((message) => message.body)).toEqual(['{"a":"é"}']);
    } finally {
      sqs.destroy();
      await service.stop();
    }
  });
});

describe('an AWS request in IAM terms', () => {
  const json = (target: string, body: unknown, signed = true) => ({
    method: 'POST',
    url: '/',
    headers: { 'x-amz-target': target, ...(signed ? { authorization: 'AWS4-HMAC-SHA256 Credential=ASIAFN0001/20260101/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x' } : {}) },
    body: Buffer.from(JSON.stringify(body)),
  });
  const table = 'arn:aws:dynamodb:eu-west-1:123456789012:table/T';

  it('authorizes each item of a DynamoDB transaction by its own action, and a Query on an index on the index', () => {
    const transaction = describeRequest('dynamodb', json('DynamoDB_20120810.TransactWriteItems', { TransactItems: [{ Put: { TableName: 'T' } }, { ConditionCheck: { TableName: 'T' } }, { Update: { TableName: 'T' } }] }), names);
    expect(transaction.accessKeyId).toBe('ASIAFN0001');
    expect(transaction.authorizations).toEqual([
      { action: 'dynamodb:PutItem', resource: table },
      { action: 'dynamodb:ConditionCheckItem', resource: table },
      { action: 'dynamodb:UpdateItem', resource: table },
    ]);
    expect(describeRequest('dynamodb', json('DynamoDB_20120810.Query', { TableName: 'T', IndexName: 'gsi1' }), names).authorizations).toEqual([{ action: 'dynamodb:Query', resource: `${table}/index/gsi1` }]);
  });

  it('authorizes an SQS batch as its single action', () => {
    const batch = describeRequest('sqs', json('AmazonSQS.SendMessageBatch', { QueueUrl: 'http://127.0.0.1:1/123456789012/events' }), names);
    expect(batch).toMatchObject({ operation: 'SendMessageBatch', authorizations: [{ action: 'sqs:SendMessage', resource: 'arn:queue:events' }] });
  });

  it('names S3 operations by method, path and sub-resource, presigned URLs by their credential', () => {
    const s3 = (method: string, url: string, headers: Record<string, string> = {}) => describeRequest('s3', { method, url, headers, body: Buffer.alloc(0) }, names);
    expect(s3('DELETE', '/b/exports/x.pdf?uploadId=u1').authorizations).toEqual([{ action: 's3:AbortMultipartUpload', resource: 'arn:aws:s3:::b/exports/x.pdf' }]);
    expect(s3('PUT', '/b/k?partNumber=2&uploadId=u1').authorizations).toEqual([{ action: 's3:PutObject', resource: 'arn:aws:s3:::b/k' }]);
    expect(s3('GET', '/b?list-type=2').authorizations).toEqual([{ action: 's3:ListBucket', resource: 'arn:aws:s3:::b' }]);
    const presigned = s3('GET', '/b/exports/e.json?X-Amz-Credential=ASIAFN0002%2F20260101%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Expires=300');
    expect(presigned).toMatchObject({ accessKeyId: 'ASIAFN0002', operation: 'GetObject', authorizations: [{ action: 's3:GetObject', resource: 'arn:aws:s3:::b/exports/e.json' }] });
  });

  it("passes KMS's encryption context to IAM, and asks nothing of IAM for Cognito's user-token calls", () => {
    expect(describeRequest('kms', json('TrentService.Decrypt', { KeyId: SECRETS, EncryptionContext: { purpose: 'cursor' } }), names).authorizations).toEqual([
      { action: 'kms:Decrypt', resource: SECRETS, context: { 'kms:EncryptionContext:purpose': 'cursor', 'kms:EncryptionContextKeys': ['purpose'] } },
    ]);
    expect(describeRequest('cognito-idp', json('AWSCognitoIdentityProviderService.InitiateAuth', { ClientId: 'c' }, false), names)).toMatchObject({ accessKeyId: undefined, authorizations: [] });
    expect(describeRequest('cognito-idp', json('AWSCognitoIdentityProviderService.AdminCreateUser', { UserPoolId: 'eu-west-1_x' }), names).authorizations).toEqual([
      { action: 'cognito-idp:AdminCreateUser', resource: 'arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_x' },
    ]);
  });

  it('filters stream records as the mapping filter says', () => {
    const pattern = { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['operation', 'epoch'] } } } };
    expect(matchesFilter(pattern, { eventName: 'INSERT', dynamodb: { NewImage: { type: { S: 'operation' } } } })).toBe(true);
    expect(matchesFilter(pattern, { eventName: 'MODIFY', dynamodb: { NewImage: { type: { S: 'operation' } } } })).toBe(false);
    expect(matchesFilter(pattern, { eventName: 'INSERT', dynamodb: { NewImage: { type: { S: 'agent' } } } })).toBe(false);
    expect(() => matchesFilter({ size: [{ numeric: ['>', 1] }] as never }, {})).toThrow(/value lists only/);
  });
});
