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
import type { ReceiptSignerMode } from './settings.js';

/**
 * The role tag that marks a receipt-signing function (grants.ts tags every role whose uses name
 * 'signer'): the wrapping key's policy denies decryption to every principal without it.
 */
export const RECEIPT_SIGNER_TAG = { key: 'agent-ledger:receipt-signer', value: 'true' } as const;

/** What no one but the break-glass role may do to the receipt-signing key. */
export const PROTECTED_KEY_ACTIONS = ['kms:ScheduleKeyDeletion', 'kms:DisableKey'] as const;

export interface LedgerKeysProps {
  /**
   * Context `breakGlassRoleArn`: the one role allowed to disable the receipt-signing key or
   * schedule its deletion. Unset, nobody may, until a deploy names such a role.
   */
  readonly breakGlassRoleArn: string | undefined;
  /** Context `receiptSigner`: with `envelope`, the stack also has the receipt key's wrapping key. */
  readonly receiptSigner: ReceiptSignerMode;
}

export class LedgerKeys extends Construct {
  /** Ed25519 receipt signer (docs/PROTOCOL.md, Receipt; docs/API.md §2.3 service_signature). */
  readonly signer: Key;
  /** Symmetric key that encrypts webhook secrets at rest (docs/API.md §2.12: never returned). */
  readonly secrets: Key;
  /**
   * With receiptSigner=envelope: the symmetric key the receipt key's seed is encrypted under
   * (lambdas/adapters/aws/envelope-signer.ts). Undefined in kms mode.
   */
  readonly receiptKeyWrap: Key | undefined;
  /**
   * With receiptSigner=envelope: the Ed25519 key that attests each receipt-key generation's
   * public half, so that only generations a signing function made are published
   * (lambdas/adapters/aws/receipt-key-attestor.ts). Undefined in kms mode.
   */
  readonly receiptKeyAttestor: Key | undefined;

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
    onlyBreakGlassMayDisableOrDelete(this.signer, props.breakGlassRoleArn);

    this.secrets = new Key(this, 'WebhookSecrets', {
      description: 'agent-ledger: encrypts webhook signing secrets at rest',
      enableKeyRotation: true,
      alias: `${aliasPrefix}/webhook-secrets`,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.receiptKeyWrap = props.receiptSigner === 'envelope' ? receiptKeyWrap(this, aliasPrefix, props.breakGlassRoleArn) : undefined;
    this.receiptKeyAttestor = props.receiptSigner === 'envelope' ? receiptKeyAttestor(this, aliasPrefix, props.breakGlassRoleArn) : undefined;
  }
}

/**
 * The wrapping key of the envelope receipt key. Whoever can decrypt with it can copy the
 * receipt key (SECURITY.md, "Receipt signing modes"), so its policy denies Decrypt and
 * ReEncrypt (which would move the seed under a key the caller controls) to every principal but
 * the roles tagged as receipt signers, administrators included; IAM policies (grants.ts) then
 * give those roles Decrypt and GenerateDataKey under the receipt-key purpose only. Kept when the
 * stack is deleted and protected like the signing key: without it no receipt key can be opened.
 */
function receiptKeyWrap(scope: Construct, aliasPrefix: string, breakGlassRoleArn: string | undefined): Key {
  const key = new Key(scope, 'ReceiptKeyWrap', {
    description: 'agent-ledger: encrypts the Ed25519 receipt key (receiptSigner=envelope); only the signing functions may decrypt',
    enableKeyRotation: true,
    alias: `${aliasPrefix}/receipt-key-wrap`,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'OnlySigningFunctionsMayDecrypt',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['kms:Decrypt', 'kms:ReEncryptFrom'],
      resources: ['*'],
      conditions: { StringNotEquals: { [`aws:PrincipalTag/${RECEIPT_SIGNER_TAG.key}`]: RECEIPT_SIGNER_TAG.value } },
    }),
  );
  onlyBreakGlassMayDisableOrDelete(key, breakGlassRoleArn);
  return key;
}

/**
 * The receipt keys' attestation key: the signing functions may Sign with it (grants.ts), the
 * publishing functions read its public half. Kept and protected like the signing key: without
 * it no generation can be published, and a new one would make every attested generation
 * unpublished until each was opened again.
 */
function receiptKeyAttestor(scope: Construct, aliasPrefix: string, breakGlassRoleArn: string | undefined): Key {
  const key = new Key(scope, 'ReceiptKeyAttestor', {
    description: 'agent-ledger: attests the public half of each receipt key generation (receiptSigner=envelope); never signs receipts',
    keySpec: KeySpec.ECC_NIST_EDWARDS25519,
    keyUsage: KeyUsage.SIGN_VERIFY,
    alias: `${aliasPrefix}/receipt-key-attestor`,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  onlyBreakGlassMayDisableOrDelete(key, breakGlassRoleArn);
  return key;
}

/** Context `breakGlassRoleArn`: only that role may disable `key` or schedule its deletion (nobody when unset). */
function onlyBreakGlassMayDisableOrDelete(key: Key, breakGlassRoleArn: string | undefined): void {
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'OnlyBreakGlassMayDisableOrDelete',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: [...PROTECTED_KEY_ACTIONS],
      resources: ['*'],
      ...(breakGlassRoleArn ? { conditions: { ArnNotEquals: { 'aws:PrincipalArn': breakGlassRoleArn } } } : {}),
    }),
  );
}
