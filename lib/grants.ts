/**
 * Turns the `uses` of a route or worker (route-spec.ts `Resource`) into IAM permissions:
 * each resource maps to the actions the code behind it calls, on exactly that resource, and
 * a function gets nothing its entry does not name. A function with `uses: []` can only write
 * its own log group and X-Ray traces (function.ts).
 *
 * Actions are listed one by one instead of the CDK `grant*` helpers, which give a family of
 * actions per call (grantReadWriteData includes Scan and BatchWriteItem on every index,
 * grantEncrypt adds GenerateDataKey* and ReEncrypt*, bucket.grantRead the GetObject*,
 * GetBucket* and List* families). test/infra/grants.test.ts holds every function to these.
 */
import { Tags } from 'aws-cdk-lib';
import { Effect, PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import type { QueueName } from '../lambdas/domain/ports.js';
import type { Resource } from '../lambdas/routes/route-spec.js';
import { CURSOR_PURPOSE } from '../lambdas/shared/cursor-purpose.js';
import { RECEIPT_KEY_PURPOSE, RECEIPT_KEYS_PARTITION } from '../lambdas/shared/receipt-keys.js';
import { TABLE_DESIGN } from '../lambdas/store/table-design.js';
import { TOKEN_USE_PREFIX } from '../lambdas/store/identity-items.js';
import { IDENTITY_ACTIONS } from './identity.js';
import { valueIn } from './imports.js';
import { RECEIPT_SIGNER_TAG } from './keys.js';
import type { LedgerResources } from './resources.js';

/** The store's point reads, batch reads and queries (lambdas/store/dynamo.ts); never Scan. */
export const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;
/**
 * Single-item writes and the items of TransactWriteItems, which IAM authorizes per item as
 * PutItem, UpdateItem, DeleteItem and ConditionCheckItem; never BatchWriteItem. DeleteItem
 * stays with the writes: one-time values (OAuth states, codes, leases) are taken by deleting them.
 */
export const TABLE_WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'] as const;
/** Reads of an object, and ListBucket so a missing key answers 404 rather than 403 and the health probe's HeadBucket works. */
export const BUCKET_READ_ACTIONS = { objects: ['s3:GetObject'], bucket: ['s3:ListBucket'] } as const;
/**
 * Puts only (multipart uploads included: S3 authorizes their create, part and complete calls
 * as PutObject): evidence is never deleted or overwritten by a function (docs/ARCHITECTURE.md, Data).
 */
export const BUCKET_WRITE_ACTIONS = ['s3:PutObject'] as const;
/**
 * The data bucket's writers may also abort an unfinished multipart upload, which discards
 * only its parts, never an object: the exports worker gives up a failed export's file that way
 * (store/export-objects.ts).
 */
export const DATA_WRITE_ACTIONS = [...BUCKET_WRITE_ACTIONS, 's3:AbortMultipartUpload'] as const;
/**
 * Destroying an object for good (store/objects.ts destroyObject): every version and delete
 * marker of its key listed, then each deleted by its version id. A plain DeleteObject would only
 * add a delete marker in the versioned data bucket and keep the bytes (lib/data.ts), so it is
 * granted to no function.
 */
export const DESTROY_ACTIONS = { objects: ['s3:DeleteObjectVersion'], bucket: ['s3:ListBucketVersions'] } as const;
/** The data bucket's key spaces whose objects erasure destroys: payloads, and export files that held one (docs/STORAGE.md). */
export const ERASABLE_PREFIXES = { payloads: 'payloads/*', exports: 'exports/*' } as const;
/** Receipt signing: Sign, and GetPublicKey for the kid a receipt names (adapters/aws/kms-signer.ts). */
export const SIGN_ACTIONS = ['kms:Sign', 'kms:GetPublicKey'] as const;
/** Publishing the receipt key (JWKS) and probing it (deep health): the public half only. */
export const PUBLIC_KEY_ACTIONS = ['kms:GetPublicKey'] as const;
/**
 * Envelope receipt signing (lambdas/adapters/aws/envelope-signer.ts): the seed made and opened
 * under the receipt-key purpose only; never kms:Sign.
 */
export const ENVELOPE_SIGN_ACTIONS = ['kms:Decrypt', 'kms:GenerateDataKey'] as const;
/**
 * Attesting a receipt-key generation's public half, and checking attestations
 * (lambdas/adapters/aws/receipt-key-attestor.ts): the signing functions only.
 */
export const ATTEST_ACTIONS = ['kms:Sign', 'kms:GetPublicKey'] as const;
/**
 * Writes no grant but the signing functions' 'signer' may make to the receipt keys' partition,
 * denied explicitly to every function with 'table:write' (whose allow covers the whole table);
 * the signing functions keep their conditional PutItem (create, attest) and nothing else.
 */
export const RECEIPT_KEY_DENIED_WRITES = { others: TABLE_WRITE_ACTIONS.filter((action) => action !== 'dynamodb:ConditionCheckItem'), signers: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'] } as const;
/** The receipt keys' items (store/receipt-keys.ts): read, and a missing generation created. */
export const RECEIPT_KEY_ITEM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'] as const;
/** Publishing the envelope receipt keys (the JWKS) and probing the current one: their items read, nothing else. */
export const RECEIPT_KEY_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query'] as const;
/** Sending a message, and the attributes the deep health probe reads (adapters/aws/sqs-queue.ts). */
export const QUEUE_SEND_ACTIONS = ['sqs:SendMessage', 'sqs:GetQueueAttributes'] as const;
/** Moving a message to a dead-letter queue by hand (adapters/aws/sqs-queue.ts sendToDeadLetters). */
export const DEAD_LETTER_SEND_ACTIONS = ['sqs:SendMessage'] as const;
/** Sealing and opening audit cursors (adapters/aws/kms-encryptor.ts), under the cursor purpose only. */
export const CURSOR_ACTIONS = ['kms:Encrypt', 'kms:Decrypt'] as const;

type Statements = (scope: IConstruct, resources: LedgerResources) => PolicyStatement[];

const allow = (actions: readonly string[], resources: string[]) => new PolicyStatement({ actions: [...actions], resources });

/** The table and its indexes, named one by one (TABLE_DESIGN), as the grantee's stack sees them. */
function tableArns(scope: IConstruct, { table }: LedgerResources): { table: string; indexes: string[] } {
  const arn = valueIn(scope, 'LedgerTableArn', table.tableArn);
  return { table: arn, indexes: TABLE_DESIGN.globalIndexes.map((index) => `${arn}/index/${index.name}`) };
}

const tableRead: Statements = (scope, resources) => {
  const { table, indexes } = tableArns(scope, resources);
  return [allow(TABLE_READ_ACTIONS, [table]), allow(['dynamodb:Query'], indexes)];
};

/** Reads of `which`, and the `writes` on its objects (none for a reader). */
function bucketStatements(which: 'dataBucket' | 'anchorsBucket', writes: readonly string[]): Statements {
  return (scope, resources) => {
    const bucket = valueIn(scope, BUCKET_PARAMETERS[which], resources[which].bucketArn);
    return [allow(BUCKET_READ_ACTIONS.bucket, [bucket]), allow([...BUCKET_READ_ACTIONS.objects, ...writes], [`${bucket}/*`])];
  };
}

/** Destroying objects of the data bucket under `prefixes` only. */
function destroyIn(prefixes: readonly string[]): Statements {
  return (scope, resources) => {
    const bucket = valueIn(scope, BUCKET_PARAMETERS.dataBucket, resources.dataBucket.bucketArn);
    return [allow(DESTROY_ACTIONS.bucket, [bucket]), allow(DESTROY_ACTIONS.objects, prefixes.map((prefix) => `${bucket}/${prefix}`))];
  };
}

/** Names of the bucket ARN parameters in nested stacks (imports.ts), which nag-suppressions.ts names in its findings. */
export const BUCKET_PARAMETERS = { dataBucket: 'LedgerDataBucketArn', anchorsBucket: 'LedgerAnchorsBucketArn' } as const;

const keyArn = (scope: IConstruct, resources: LedgerResources, key: 'signerKey' | 'secretsKey') =>
  valueIn(scope, `Ledger${key === 'signerKey' ? 'Signer' : 'Secrets'}KeyArn`, resources[key].keyArn);

const onKey =
  (key: 'signerKey' | 'secretsKey', actions: readonly string[]): Statements =>
  (scope, resources) => [allow(actions, [keyArn(scope, resources, key)])];

/** `actions` on the receipt keys' partition of the table only (store/receipt-keys.ts). */
const receiptKeyItems =
  (actions: readonly string[]): Statements =>
  (scope, resources) => [
    new PolicyStatement({
      actions: [...actions],
      resources: [tableArns(scope, resources).table],
      conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [RECEIPT_KEYS_PARTITION] } },
    }),
  ];

const attestKeyArn = (scope: IConstruct, receiptKey: NonNullable<LedgerResources['receiptKey']>) =>
  valueIn(scope, 'LedgerReceiptKeyAttestArn', receiptKey.attestKey.keyArn);

/**
 * With receiptSigner=envelope, 'signer' is the wrapping key under the receipt-key purpose, the
 * attestation key, and the receipt keys' items; 'signer:public-key' those items read and the
 * attestation key's public half; with kms, the signing key.
 */
const receiptSigning: Statements = (scope, resources) => {
  if (!resources.receiptKey) return onKey('signerKey', SIGN_ACTIONS)(scope, resources);
  return [
    new PolicyStatement({
      actions: [...ENVELOPE_SIGN_ACTIONS],
      resources: [valueIn(scope, 'LedgerReceiptKeyWrapArn', resources.receiptKey.wrapKey.keyArn)],
      conditions: { StringEquals: { 'kms:EncryptionContext:purpose': RECEIPT_KEY_PURPOSE } },
    }),
    allow(ATTEST_ACTIONS, [attestKeyArn(scope, resources.receiptKey)]),
    ...receiptKeyItems(RECEIPT_KEY_ITEM_ACTIONS)(scope, resources),
  ];
};

const receiptPublicKeys: Statements = (scope, resources) =>
  resources.receiptKey
    ? [...receiptKeyItems(RECEIPT_KEY_READ_ACTIONS)(scope, resources), allow(PUBLIC_KEY_ACTIONS, [attestKeyArn(scope, resources.receiptKey)])]
    : onKey('signerKey', PUBLIC_KEY_ACTIONS)(scope, resources);

/** The explicit deny of RECEIPT_KEY_DENIED_WRITES for a function with 'table:write'. */
function receiptKeyWriteDeny(scope: IConstruct, resources: LedgerResources, signer: boolean): PolicyStatement {
  return new PolicyStatement({
    effect: Effect.DENY,
    actions: [...(signer ? RECEIPT_KEY_DENIED_WRITES.signers : RECEIPT_KEY_DENIED_WRITES.others)],
    resources: [tableArns(scope, resources).table],
    conditions: { 'ForAnyValue:StringEquals': { 'dynamodb:LeadingKeys': [RECEIPT_KEYS_PARTITION] } },
  });
}

const sendTo =
  (queue: QueueName): Statements =>
  (_scope, { queues }) => [allow(QUEUE_SEND_ACTIONS, [queues[queue].queueArn])];

const GRANTS: Record<Resource, Statements> = {
  'table:read': tableRead,
  'table:write': (scope, resources) => [...tableRead(scope, resources), allow(TABLE_WRITE_ACTIONS, [tableArns(scope, resources).table])],
  // UpdateItem on the request counters' partitions only (lambdas/store/rate-counters.ts: pk
  // `<bucket>#RATE`), so a read-only route can count its request and change nothing else.
  'table:rate-counter': (scope, resources) => [
    new PolicyStatement({
      actions: ['dynamodb:UpdateItem'],
      resources: [tableArns(scope, resources).table],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['*#RATE'] } },
    }),
  ],
  // UpdateItem on the token-use items only (lambdas/store/token-records.ts: pk `TOKENUSE#<id>`),
  // so a route can record the use of the token it was called with and change no token's end.
  'table:token-use': (scope, resources) => [
    new PolicyStatement({
      actions: ['dynamodb:UpdateItem'],
      resources: [tableArns(scope, resources).table],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${TOKEN_USE_PREFIX}*`] } },
    }),
  ],
  'data:read': bucketStatements('dataBucket', []),
  'data:write': bucketStatements('dataBucket', DATA_WRITE_ACTIONS),
  'data:erase': destroyIn([ERASABLE_PREFIXES.payloads, ERASABLE_PREFIXES.exports]),
  'data:erase-exports': destroyIn([ERASABLE_PREFIXES.exports]),
  'anchors:read': bucketStatements('anchorsBucket', []),
  'anchors:write': bucketStatements('anchorsBucket', BUCKET_WRITE_ACTIONS),
  signer: receiptSigning,
  'signer:public-key': receiptPublicKeys,
  // The webhook secrets are encrypted and decrypted with the key itself (adapters/aws/kms-encryptor.ts), never through data keys.
  'secrets:encrypt': onKey('secretsKey', ['kms:Encrypt']),
  'secrets:decrypt': onKey('secretsKey', ['kms:Decrypt']),
  // Encrypt and decrypt only under the cursor's encryption context (domain/audit/cursor.ts),
  // so a function that pages cannot open a webhook secret sealed with the same key.
  cursors: (scope, resources) => [
    new PolicyStatement({
      actions: [...CURSOR_ACTIONS],
      resources: [keyArn(scope, resources, 'secretsKey')],
      conditions: { StringEquals: { 'kms:EncryptionContext:purpose': CURSOR_PURPOSE } },
    }),
  ],
  'queue:events': sendTo('events'),
  'queue:exports': sendTo('exports'),
  // Retries are new messages on the deliveries queue; after the last attempt the worker moves
  // the delivery's message to the dead-letter queue itself (docs/WEBHOOKS.md): a send, nothing more.
  'queue:deliveries': (scope, resources) => [
    ...sendTo('deliveries')(scope, resources),
    allow(DEAD_LETTER_SEND_ACTIONS, [resources.deadLetterQueues.deliveries.queueArn]),
  ],
  // Sign-up's Admin* calls on the one user pool (identity.ts); sign-in uses public Cognito APIs.
  identity: (_scope, { identity }) => [allow(IDENTITY_ACTIONS, [identity.userPool.userPoolArn])],
};

export function grantUses(resources: LedgerResources, grantee: IGrantable & IConstruct, uses: readonly Resource[]): void {
  // The wrapping key's policy lets only roles with this tag decrypt (keys.ts receiptKeyWrap).
  if (resources.receiptKey && uses.includes('signer')) Tags.of(grantee).add(RECEIPT_SIGNER_TAG.key, RECEIPT_SIGNER_TAG.value);
  for (const use of new Set(uses)) {
    for (const statement of GRANTS[use](grantee, resources)) grantee.grantPrincipal.addToPrincipalPolicy(statement);
  }
  // The JWKS publishes only attested generations (envelope-signer.ts); this keeps the partition
  // itself out of reach of every other writer, so none can overwrite or delete a generation.
  if (uses.includes('table:write')) grantee.grantPrincipal.addToPrincipalPolicy(receiptKeyWriteDeny(grantee, resources, uses.includes('signer')));
}
