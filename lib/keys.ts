/**
 * The service's KMS keys (docs/ARCHITECTURE.md, Shape: "KMS signs receipts and encrypts webhook
 * secrets"). Both are kept when the stack is deleted: without the signer key no one can tell
 * a forged receipt from a real one, and without the secrets key no webhook secret can be read.
 * Each has an alias (`alias/<stack name>/...`) so operators find it by name in the console and
 * in CloudTrail.
 */
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/** What no one but the break-glass role may do to the receipt-signing key. */
export const PROTECTED_KEY_ACTIONS = ['kms:ScheduleKeyDeletion', 'kms:DisableKey'] as const;

export interface LedgerKeysProps {
  /**
   * Context `breakGlassRoleArn`: the one role allowed to disable the receipt-signing key or
   * schedule its deletion. Unset, nobody may, until a deploy names such a role.
   */
  readonly breakGlassRoleArn: string | undefined;
}

export class LedgerKeys extends Construct {
  /** Ed25519 receipt signer (docs/PROTOCOL.md, Receipt; docs/API.md §2.3 service_signature). */
  readonly signer: Key;
  /** Symmetric key that encrypts webhook secrets at rest (docs/API.md §2.12: never returned). */
  readonly secrets: Key;

  constructor(scope: Construct, id: string, props: LedgerKeysProps) {
    super(scope, id);
    const aliasPrefix = `alias/${Stack.of(this).stackName}`;

    // The private half never leaves KMS; handlers call kms:Sign (ED25519_SHA_512) and publish
    // the public half at /.well-known/service/jwks.json. KMS does not rotate asymmetric
    // keys: rotating means adding a new key and publishing both in the JWKS.
    this.signer = new Key(this, 'ReceiptSigner', {
      description: 'agent-ledger: signs operation receipts (Ed25519); public half served at the JWKS endpoint',
      keySpec: KeySpec.ECC_NIST_EDWARDS25519,
      keyUsage: KeyUsage.SIGN_VERIFY,
      alias: `${aliasPrefix}/receipt-signer`,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Disabling the key stops every submission at once, and deleting it makes every receipt
    // ever issued unverifiable against a live key: a mistake or a compromised admin session
    // must not be able to do either. The account's administrators keep every other right
    // (the default key policy), including changing this policy through a reviewed deploy.
    this.signer.addToResourcePolicy(
      new PolicyStatement({
        sid: 'OnlyBreakGlassMayDisableOrDelete',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: [...PROTECTED_KEY_ACTIONS],
        resources: ['*'],
        ...(props.breakGlassRoleArn ? { conditions: { ArnNotEquals: { 'aws:PrincipalArn': props.breakGlassRoleArn } } } : {}),
      }),
    );

    this.secrets = new Key(this, 'WebhookSecrets', {
      description: 'agent-ledger: encrypts webhook signing secrets at rest',
      enableKeyRotation: true,
      alias: `${aliasPrefix}/webhook-secrets`,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
