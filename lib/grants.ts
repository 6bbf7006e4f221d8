/**
 * Turns the `uses` of a route or worker (route-spec.ts `Resource`) into IAM permissions:
 * each resource maps to exactly one grant, and a function gets nothing its entry does not
 * name. A function with `uses: []` can only write its own log group and X-Ray traces
 * (function.ts).
 */
import { PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Resource } from '../lambdas/routes/route-spec.js';
import type { LedgerResources } from './resources.js';
import { CURSOR_PURPOSE } from '../lambdas/shared/cursor-purpose.js';

/** What the receipt signer may be asked: sign, publish the public key, and the health probe. */
export const SIGNER_ACTIONS = ['kms:Sign', 'kms:GetPublicKey', 'kms:DescribeKey'] as const;

type Grant = (resources: LedgerResources, grantee: IGrantable) => void;

const GRANTS: Record<Resource, Grant> = {
  'table:read': ({ table }, grantee) => table.grantReadData(grantee),
  'table:write': ({ table }, grantee) => table.grantReadWriteData(grantee),
  'data:read': ({ dataBucket }, grantee) => dataBucket.grantRead(grantee),
  // Put and read, never delete: payloads, receipts and exports are evidence (DESIGN.md, Data:
  // an object no committed row points to is harmless, so nothing needs to clean up).
  'data:write': ({ dataBucket }, grantee) => {
    dataBucket.grantPut(grantee);
    dataBucket.grantRead(grantee);
  },
  'anchors:read': ({ anchorsBucket }, grantee) => anchorsBucket.grantRead(grantee),
  'anchors:write': ({ anchorsBucket }, grantee) => {
    anchorsBucket.grantPut(grantee);
    anchorsBucket.grantRead(grantee);
  },
  // No L2 grant covers signing; name the actions on this one key.
  signer: ({ signerKey }, grantee) => {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...SIGNER_ACTIONS], resources: [signerKey.keyArn] }),
    );
  },
  'secrets:encrypt': ({ secretsKey }, grantee) => secretsKey.grantEncrypt(grantee),
  'secrets:decrypt': ({ secretsKey }, grantee) => secretsKey.grantDecrypt(grantee),
  // Encrypt and decrypt only under the cursor's encryption context (domain/audit/cursor.ts),
  // so a function that pages cannot open a webhook secret sealed with the same key.
  cursors: ({ secretsKey }, grantee) => {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['kms:Encrypt', 'kms:Decrypt'],
        resources: [secretsKey.keyArn],
        conditions: { StringEquals: { 'kms:EncryptionContext:purpose': CURSOR_PURPOSE } },
      }),
    );
  },
  // grantSendMessages includes sqs:GetQueueAttributes, which the deep health probe calls.
  'queue:events': ({ queues }, grantee) => queues.events.grantSendMessages(grantee),
  'queue:exports': ({ queues }, grantee) => queues.exports.grantSendMessages(grantee),
  // Retries are new messages on the deliveries queue; after the last attempt the worker moves
  // the delivery's message to the dead-letter queue itself (README, Webhooks).
  'queue:deliveries': ({ queues, deadLetterQueues }, grantee) => {
    queues.deliveries.grantSendMessages(grantee);
    deadLetterQueues.deliveries.grantSendMessages(grantee);
  },
  // Sign-up's Admin* calls on the one user pool (identity.ts); sign-in uses public Cognito APIs.
  identity: ({ identity }, grantee) => identity.grant(grantee),
};

export function grantUses(resources: LedgerResources, grantee: IGrantable, uses: readonly Resource[]): void {
  for (const use of new Set(uses)) GRANTS[use](resources, grantee);
}
