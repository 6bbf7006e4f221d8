/**
 * Composition root: builds each infrastructure client and port adapter once per process
 * (module scope, DESIGN.md Conventions) from the configuration, choosing the AWS or the
 * local implementation. Handlers and workers take their dependencies from here.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { ed25519Jwk } from '@agent-ledger/protocol';
import { config } from '../config.js';
import type { Encryptor, IdentityProvider, Queue, Signer, TimestampAuthority } from '../domain/ports.js';
import { CognitoIdentityProvider } from '../adapters/aws/cognito-identity-provider.js';
import { LocalIdentityProvider } from '../adapters/local/local-identity-provider.js';
import { KmsEncryptor } from '../adapters/aws/kms-encryptor.js';
import { KmsSigner } from '../adapters/aws/kms-signer.js';
import { SqsQueue } from '../adapters/aws/sqs-queue.js';
import { FileEncryptor } from '../adapters/local/file-encryptor.js';
import { FileSigner } from '../adapters/local/file-signer.js';
import { memoryQueue } from '../adapters/local/memory-queue.js';
import { Rfc3161Client } from '../adapters/tsa/rfc3161-client.js';

function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/** Local engines accept any credentials; the SDK still wants some. */
function localCredentials(endpoint: string | undefined) {
  return endpoint && !process.env.AWS_ACCESS_KEY_ID
    ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : {};
}

const kms = once(() => new KMSClient({ region: config().region }));

export const dynamo = once(() => {
  const { region, dynamoEndpoint } = config();
  const client = new DynamoDBClient({
    region,
    ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}),
    ...localCredentials(dynamoEndpoint),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
});

export const s3 = once(() => {
  const { region, s3Endpoint } = config();
  return new S3Client({
    region,
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
  });
});

export const signer = once((): Signer => {
  const { signer: source, retiredServiceKeys } = config();
  const retired = retiredServiceKeys.map((x) => ed25519Jwk(x));
  return source.kind === 'kms' ? new KmsSigner(kms(), source.keyId, retired) : new FileSigner(source.path, retired);
});

export const encryptor = once((): Encryptor => {
  const source = config().encryptor;
  return source.kind === 'kms' ? new KmsEncryptor(kms(), source.keyId) : new FileEncryptor(source.path);
});

export const queue = once((): Queue => {
  const source = config().queue;
  return source.kind === 'sqs'
    ? new SqsQueue(new SQSClient({ region: config().region }), { events: source.eventsUrl, exports: source.exportsUrl })
    : memoryQueue();
});

/** Cognito in AWS, the DynamoDB-backed local provider on one machine (config.ts IdentityConfig). */
export const identityProvider = once((): IdentityProvider => {
  const source = config().identity;
  if (source.kind === 'local') return new LocalIdentityProvider();
  if (source.kind === 'none') {
    throw new Error("no identity provider configured: this function's route does not use 'identity' (LEDGER_IDENTITY unset)");
  }
  return new CognitoIdentityProvider(new CognitoIdentityProviderClient({ region: config().region }), source);
});

/** The RFC 3161 time-stamping authority when LEDGER_TSA_URL is set; undefined means epochs are not anchored. */
export const timestampAuthority = once((): TimestampAuthority | undefined => {
  const url = config().tsaUrl;
  return url ? new Rfc3161Client(url) : undefined;
});
