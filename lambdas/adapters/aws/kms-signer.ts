/**
 * Receipt signer backed by a KMS key of spec ECC_NIST_EDWARDS25519 (docs/PROTOCOL.md, Receipt):
 * `Sign` with `ED25519_SHA_512` and MessageType `RAW` is pure Ed25519 (RFC 8032 PureEdDSA)
 * over the message; the private half never leaves KMS. The public key is fetched once per
 * cold start and cached. Throttled calls are counted (kms-throttles.ts).
 */
import { GetPublicKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { ed25519Jwk, type Ed25519Jwk } from '@agent-ledger/protocol';
import { SignerBusyError, type Signer } from '../../domain/ports.js';
import { countingThrottles, isThrottling } from './kms-throttles.js';
import { kmsEd25519PublicX, kmsEd25519Sign } from './kms-ed25519.js';

export class KmsSigner implements Signer {
  private publicJwk: Promise<Ed25519Jwk> | undefined;

  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
    /** Public JWKs of retired service keys, kept listed so old receipts keep verifying (docs/PROTOCOL.md). */
    private readonly retired: readonly Ed25519Jwk[] = [],
  ) {}

  private jwk(): Promise<Ed25519Jwk> {
    this.publicJwk ??= kmsEd25519PublicX(this.kms, this.keyId).then((x) => ed25519Jwk(x));
    this.publicJwk.catch(() => {
      this.publicJwk = undefined; // a failed fetch is retried on the next call, not cached
    });
    return this.publicJwk;
  }

  async kid(): Promise<string> {
    return (await this.jwk()).kid;
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    try {
      // A throttled Sign is still counted (KmsThrottles) before it becomes RATE_LIMITED.
      return await kmsEd25519Sign(this.kms, this.keyId, message);
    } catch (error) {
      // The SDK already retried with backoff; past that, the caller is told to come back.
      if (isThrottling(error)) throw new SignerBusyError(error);
      throw error;
    }
  }

  async jwks(): Promise<Ed25519Jwk[]> {
    const current = await this.jwk();
    return [current, ...this.retired.filter((jwk) => jwk.kid !== current.kid)];
  }

  /**
   * A fresh GetPublicKey, not the cached one: it fails when KMS is unreachable or the key is
   * disabled, and needs no permission beyond the public key's (lib/grants.ts 'signer:public-key').
   */
  async ping(): Promise<void> {
    await countingThrottles(this.kms.send(new GetPublicKeyCommand({ KeyId: this.keyId })));
  }
}
