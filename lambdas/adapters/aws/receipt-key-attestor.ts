/**
 * The attestation key of the envelope receipt keys (SECURITY.md, "Receipt signing modes"): an
 * ECC_NIST_EDWARDS25519 KMS key that signs each generation's public half once, when a signing
 * function makes or opens its seed (kms:Sign, granted to the signing functions only), and whose
 * public half every publishing function checks before it lists a generation in the JWKS
 * (kms:GetPublicKey). A table writer can put any public half in the table, but not sign it.
 * The key's own public half is never in the JWKS: what it signs can never pass as a receipt.
 */
import { SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import { verify } from '@agent-ledger/protocol';
import { countingThrottles } from './kms-throttles.js';
import { kmsEd25519PublicX } from './kms-public-key.js';

export class ReceiptKeyAttestor {
  private publicX: Promise<string> | undefined;

  constructor(
    private readonly kms: KMSClient,
    /** lib/keys.ts receiptKeyAttestor. */
    private readonly keyId: string,
  ) {}

  /** Pure Ed25519 over `message` (Sign with ED25519_SHA_512, MessageType RAW). */
  async sign(message: Uint8Array): Promise<Uint8Array> {
    const out = await countingThrottles(
      this.kms.send(new SignCommand({ KeyId: this.keyId, Message: message, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' })),
    );
    if (!out.Signature || out.Signature.length !== 64) throw new Error('KMS returned no Ed25519 attestation');
    return out.Signature;
  }

  /** Whether `signature` is the attestation key's over `message`; the public half is read once per process. */
  async verifies(message: Uint8Array, signature: Uint8Array | undefined): Promise<boolean> {
    if (!signature) return false;
    return verify(await this.x(), message, signature);
  }

  private x(): Promise<string> {
    this.publicX ??= kmsEd25519PublicX(this.kms, this.keyId);
    this.publicX.catch(() => {
      this.publicX = undefined; // retried on the next call, not cached
    });
    return this.publicX;
  }
}
