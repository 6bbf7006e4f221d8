/**
 * Receipt signer backed by an Ed25519 private key in a local file (PKCS#8 PEM, mode 0600,
 * created by the local stack on first start). Stands in for the KMS key on one machine
 * (docs/ARCHITECTURE.md, Local stack); signatures are the same pure Ed25519 (RFC 8032) KMS produces.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import { ed25519Jwk, sign, type Ed25519Jwk } from '@agent-ledger/protocol';
import type { Signer } from '../../domain/ports.js';

export class FileSigner implements Signer {
  private loaded: Promise<{ privateKey: KeyObject; jwk: Ed25519Jwk }> | undefined;

  constructor(
    private readonly path: string,
    /** Public JWKs of retired service keys, kept listed so old receipts keep verifying (docs/PROTOCOL.md). */
    private readonly retired: readonly Ed25519Jwk[] = [],
  ) {}

  private load() {
    this.loaded ??= readFile(this.path, 'utf8').then((pem) => {
      const privateKey = createPrivateKey(pem);
      if (privateKey.asymmetricKeyType !== 'ed25519') {
        throw new Error(`${this.path} does not hold an Ed25519 private key`);
      }
      const x = createPublicKey(privateKey).export({ format: 'jwk' }).x;
      if (!x) throw new Error(`${this.path}: cannot derive the public key`);
      return { privateKey, jwk: ed25519Jwk(x) };
    });
    return this.loaded;
  }

  async kid(): Promise<string> {
    return (await this.load()).jwk.kid;
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    return sign((await this.load()).privateKey, message);
  }

  async jwks(): Promise<Ed25519Jwk[]> {
    const current = (await this.load()).jwk;
    return [current, ...this.retired.filter((jwk) => jwk.kid !== current.kid)];
  }

  async ping(): Promise<void> {
    await access(this.path);
    await this.load();
  }
}
