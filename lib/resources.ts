/**
 * The shared AWS resources a function can be granted (route-spec.ts `Resource`), gathered
 * in one record so environment.ts and grants.ts take the same thing.
 */
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { QueueName } from '../lambdas/domain/ports.js';
import type { LedgerIdentity } from './identity.js';

export interface LedgerResources {
  readonly table: Table;
  /** Payloads, receipts and exports. */
  readonly dataBucket: Bucket;
  /** Epoch leaf lists under Object Lock (COMPLIANCE). */
  readonly anchorsBucket: Bucket;
  /** Ed25519 receipt-signing key. */
  readonly signerKey: Key;
  /** Symmetric key for webhook secrets. */
  readonly secretsKey: Key;
  /**
   * With receiptSigner=envelope: the receipt key's wrapping key and the generation in use
   * (keys.ts receiptKeyWrap) and the key that attests its generations (keys.ts receiptKeyAttestor);
   * then the signing functions sign receipts in process and call kms:Sign only to attest a generation.
   */
  readonly receiptKey: { readonly wrapKey: Key; readonly attestKey: Key; readonly generation: number } | undefined;
  readonly queues: Readonly<Record<QueueName, Queue>>;
  readonly deadLetterQueues: Readonly<Record<QueueName, Queue>>;
  /** The Cognito user pool and its app client (identity.ts). */
  readonly identity: LedgerIdentity;
}
