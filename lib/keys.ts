/**
 * The service's KMS keys (DESIGN.md, Shape: "KMS signs receipts and encrypts webhook
 * secrets"). Both are kept when the stack is deleted: without the signer key no one can tell
 * a forged receipt from a real one, and without the secrets key no webhook secret can be read.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export class LedgerKeys extends Construct {
  /** Ed25519 receipt signer (PROTOCOL.md, Receipt; SPEC.md §2.3 service_signature). */
  readonly signer: Key;
  /** Symmetric key that encrypts webhook secrets at rest (SPEC.md §2.12: never returned). */
  readonly secrets: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    // The private half never leaves KMS; handlers call kms:Sign (ED25519_SHA_512) and publish
    // the public half at /.well-known/service/jwks.json. KMS does not rotate asymmetric
    // keys: rotating means adding a new key and publishing both in the JWKS.
    this.signer = new Key(this, 'ReceiptSigner', {
      description: 'agent-ledger: signs operation receipts (Ed25519); public half served at the JWKS endpoint',
      keySpec: KeySpec.ECC_NIST_EDWARDS25519,
      keyUsage: KeyUsage.SIGN_VERIFY,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.secrets = new Key(this, 'WebhookSecrets', {
      description: 'agent-ledger: encrypts webhook signing secrets at rest',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
