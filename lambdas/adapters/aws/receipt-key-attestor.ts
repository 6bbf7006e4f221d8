/**
 * The attestation key of the envelope receipt keys (SECURITY.md, "Receipt signing modes"): an
 * ECC_NIST_EDWARDS25519 KMS key that signs each generation's public half once, when a signing
 * function makes or opens its seed (kms:Sign, granted to the signing functions only), and whose
 * public half every publishing function checks before it lists a generation in the JWKS
 * (kms:GetPublicKey). A table writer can put any public half in the table, but not sign it.
 * The key's own public half is never in the JWKS: what it signs can never pass as a receipt.
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import { verify } from '@agent-ledger/protocol';
import { attestationMessage, type StoredReceiptKey } from '../../shared/receipt-keys.js';
import { kmsEd25519PublicX, kmsEd25519Sign } from './kms-ed25519.js';

export class ReceiptKeyAttestor {
  private publicX: Promise<string> | undefined;

  constructor(
    private readonly kms: KMSClient,
    /** lib/keys.ts receiptKeyAttestor. */
    private readonly keyId: string,
  ) {}

  /** The attestation of a generation's public half (attestationMessage), made once per generation. */
  attest(key: Pick<StoredReceiptKey, 'generation' | 'kid' | 'x'>): Promise<Uint8Array> {
    return kmsEd25519Sign(this.kms, this.keyId, attestationMessage(key));
  }

  /** Whether the generation carries the attestation key's signature over its public half; that half is read once per process. */
  async attests(key: StoredReceiptKey): Promise<boolean> {
    if (!key.attestation) return false;
    return verify(await this.x(), attestationMessage(key), key.attestation);
  }

  private x(): Promise<string> {
    this.publicX ??= kmsEd25519PublicX(this.kms, this.keyId);
    this.publicX.catch(() => {
      this.publicX = undefined; // retried on the next call, not cached
    });
    return this.publicX;
  }
}
