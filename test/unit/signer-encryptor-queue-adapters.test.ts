// Port adapters for the AWS-only services (KMS, SQS) against aws-sdk-client-mock, and their
// file-backed local twins against real files: both must produce interchangeable results.
import { createPublicKey, generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, DescribeKeyCommand, EncryptCommand, GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { GetQueueAttributesCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ed25519Jwk, jwkThumbprint, verify } from '@agent-ledger/protocol';
import { KmsEncryptor } from '../../lambdas/adapters/aws/kms-encryptor.js';
import { KmsSigner } from '../../lambdas/adapters/aws/kms-signer.js';
import { SqsQueue } from '../../lambdas/adapters/aws/sqs-queue.js';
import { FileEncryptor } from '../../lambdas/adapters/local/file-encryptor.js';
import { FileSigner } from '../../lambdas/adapters/local/file-signer.js';
import { SignerBusyError } from '../../lambdas/domain/ports.js';

const kmsMock = mockClient(KMSClient);
const sqsMock = mockClient(SQSClient);

const scratchDirs: string[] = [];
async function scratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}
afterAll(() => Promise.all(scratchDirs.map((dir) => rm(dir, { recursive: true, force: true }))));

beforeEach(() => {
  kmsMock.reset();
  sqsMock.reset();
});

describe('KmsSigner', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });

  it('signs RAW with ED25519_SHA_512 and publishes the key with its RFC 7638 kid', async () => {
    kmsMock.on(GetPublicKeyCommand).resolves({ PublicKey: new Uint8Array(spki) });
    kmsMock.on(SignCommand).callsFake((input: { Message: Uint8Array }) => ({
      Signature: new Uint8Array(nodeSign(null, input.Message, privateKey)),
    }));
    const signer = new KmsSigner(new KMSClient({ region: 'us-east-1' }), 'key-1');
    const message = new TextEncoder().encode('receipt hash bytes');
    const signature = await signer.sign(message);

    const signCall = kmsMock.commandCalls(SignCommand)[0]!.args[0].input;
    expect(signCall).toMatchObject({ KeyId: 'key-1', MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' });
    const [jwk] = await signer.jwks();
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', x: publicKey.export({ format: 'jwk' }).x });
    expect(jwk!.kid).toBe(jwkThumbprint(jwk!));
    expect(await signer.kid()).toBe(jwk!.kid);
    expect(verify(jwk!.x, message, signature)).toBe(true);
  });

  it('keeps retired keys in the JWKS after the current one, so receipts they signed still verify', async () => {
    kmsMock.on(GetPublicKeyCommand).resolves({ PublicKey: new Uint8Array(spki) });
    const old = generateKeyPairSync('ed25519');
    const oldJwk = ed25519Jwk(old.publicKey.export({ format: 'jwk' }).x!);
    const signer = new KmsSigner(new KMSClient({ region: 'us-east-1' }), 'key-2', [oldJwk]);
    const jwks = await signer.jwks();
    expect(jwks.map((jwk) => jwk.kid)).toEqual([await signer.kid(), oldJwk.kid]);
    const message = new Uint8Array(32).fill(9);
    expect(verify(jwks[1]!.x, message, new Uint8Array(nodeSign(null, message, old.privateKey)))).toBe(true);
  });

  it('fetches the public key once and retries after a failure', async () => {
    kmsMock.on(GetPublicKeyCommand).rejectsOnce(new Error('throttled')).resolves({ PublicKey: new Uint8Array(spki) });
    const signer = new KmsSigner(new KMSClient({ region: 'us-east-1' }), 'key-1');
    await expect(signer.kid()).rejects.toThrow('throttled');
    await signer.kid();
    await signer.jwks();
    expect(kmsMock.commandCalls(GetPublicKeyCommand)).toHaveLength(2);
  });

  it('turns KMS throttling (after the SDK retries) into SignerBusyError; other failures stay as they are', async () => {
    kmsMock.on(GetPublicKeyCommand).resolves({ PublicKey: new Uint8Array(spki) });
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });
    kmsMock.on(SignCommand).rejects(throttled);
    // No SDK retries here, so the test does not wait out their backoff.
    const signer = new KmsSigner(new KMSClient({ region: 'us-east-1', maxAttempts: 1 }), 'key-1');
    await expect(signer.sign(new Uint8Array([1]))).rejects.toBeInstanceOf(SignerBusyError);
    kmsMock.on(SignCommand).rejects(Object.assign(new Error('disabled'), { name: 'DisabledException' }));
    await expect(signer.sign(new Uint8Array([1]))).rejects.toMatchObject({ name: 'DisabledException' });
  });

  it('pings with DescribeKey', async () => {
    kmsMock.on(DescribeKeyCommand).rejects(new Error('AccessDenied'));
    await expect(new KmsSigner(new KMSClient({ region: 'us-east-1' }), 'k').ping()).rejects.toThrow();
  });
});

describe('FileSigner', () => {
  it('signs with the key file and derives the same JWK as KMS would', async () => {
    const dir = await scratchDir('signer-');
    const { privateKey } = generateKeyPairSync('ed25519');
    const path = join(dir, 'key.pem');
    await writeFile(path, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    const signer = new FileSigner(path);
    const message = new Uint8Array(32).fill(7);
    const [jwk] = await signer.jwks();
    expect(jwk!.x).toBe(createPublicKey(privateKey).export({ format: 'jwk' }).x);
    expect(verify(jwk!.x, message, await signer.sign(message))).toBe(true);
    await expect(new FileSigner(join(dir, 'missing.pem')).ping()).rejects.toThrow();
  });

  it('lists retired keys after the current one, never the current key twice', async () => {
    const dir = await scratchDir('signer-');
    const { privateKey } = generateKeyPairSync('ed25519');
    const path = join(dir, 'key.pem');
    await writeFile(path, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    const current = ed25519Jwk(createPublicKey(privateKey).export({ format: 'jwk' }).x!);
    const retired = ed25519Jwk('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo');
    const jwks = await new FileSigner(path, [retired, current]).jwks();
    expect(jwks.map((jwk) => jwk.kid)).toEqual([current.kid, retired.kid]);
  });
});

describe('encryptors', () => {
  it('FileEncryptor round-trips and binds the encryption context', async () => {
    const dir = await scratchDir('enc-');
    const path = join(dir, 'aes.key');
    await writeFile(path, new Uint8Array(32).fill(1), { mode: 0o600 });
    const encryptor = new FileEncryptor(path);
    const sealed = await encryptor.encrypt('webhook secret value', { org_id: 'o1', webhook_id: 'w1' });
    expect(sealed).not.toContain('webhook secret');
    expect(await encryptor.decrypt(sealed, { webhook_id: 'w1', org_id: 'o1' })).toBe('webhook secret value');
    await expect(encryptor.decrypt(sealed, { org_id: 'o2', webhook_id: 'w1' })).rejects.toThrow();
  });

  it('KmsEncryptor passes the encryption context to KMS', async () => {
    kmsMock.on(EncryptCommand).resolves({ CiphertextBlob: new Uint8Array([1, 2, 3]) });
    kmsMock.on(DecryptCommand).resolves({ Plaintext: new TextEncoder().encode('s3cr3t') });
    const encryptor = new KmsEncryptor(new KMSClient({ region: 'us-east-1' }), 'sym');
    const sealed = await encryptor.encrypt('s3cr3t', { org_id: 'o1' });
    expect(await encryptor.decrypt(sealed, { org_id: 'o1' })).toBe('s3cr3t');
    expect(kmsMock.commandCalls(EncryptCommand)[0]!.args[0].input.EncryptionContext).toEqual({ org_id: 'o1' });
    expect(kmsMock.commandCalls(DecryptCommand)[0]!.args[0].input.EncryptionContext).toEqual({ org_id: 'o1' });
  });
});

describe('SqsQueue', () => {
  it('sends JSON bodies to the named queue and returns the SQS MessageId', async () => {
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'mid-1' });
    sqsMock.on(GetQueueAttributesCommand).resolves({ Attributes: {} });
    const queue = new SqsQueue(new SQSClient({ region: 'us-east-1' }), urls);
    expect(await queue.send('exports', { body: { export_id: 'e1' } })).toBe('mid-1');
    expect(sqsMock.commandCalls(SendMessageCommand)[0]!.args[0].input).toEqual({
      QueueUrl: 'https://q/exports',
      MessageBody: '{"export_id":"e1"}',
    });
    await queue.ping();
  });

  it('sends up to 10 messages in one SendMessageBatch and names the ones SQS did not take', async () => {
    sqsMock.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }] });
    const queue = new SqsQueue(new SQSClient({ region: 'us-east-1' }), urls);
    expect(await queue.sendBatch('events', [{ body: { n: 0 } }, { body: { n: 1 } }])).toEqual([1]);
    expect(sqsMock.commandCalls(SendMessageBatchCommand)[0]!.args[0].input).toEqual({
      QueueUrl: 'https://q/events',
      Entries: [
        { Id: '0', MessageBody: '{"n":0}' },
        { Id: '1', MessageBody: '{"n":1}' },
      ],
    });
    await expect(queue.sendBatch('events', Array.from({ length: 11 }, () => ({ body: {} })))).rejects.toThrow(RangeError);
    expect(await queue.sendBatch('events', [])).toEqual([]);
  });

  it('delays a message with DelaySeconds and dead-letters to the configured dead-letter queue only', async () => {
    sqsMock.on(SendMessageCommand).resolves({ MessageId: 'mid-2' });
    const queue = new SqsQueue(new SQSClient({ region: 'us-east-1' }), urls, { deliveries: 'https://q/deliveries-dlq' });
    await queue.send('deliveries', { body: { n: 1 }, delaySeconds: 900 });
    await queue.sendToDeadLetters('deliveries', { body: { n: 1 } });
    expect(sqsMock.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: 'https://q/deliveries', MessageBody: '{"n":1}', DelaySeconds: 900 },
      { QueueUrl: 'https://q/deliveries-dlq', MessageBody: '{"n":1}' },
    ]);
    await expect(queue.sendToDeadLetters('exports', { body: {} })).rejects.toThrow(/no dead-letter queue/);
  });
});

const urls = { events: 'https://q/events', deliveries: 'https://q/deliveries', exports: 'https://q/exports' };
