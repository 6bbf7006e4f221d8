/**
 * Secret encryption with an AES-256-GCM key held in a local file (32 raw bytes, mode 0600),
 * standing in for the KMS symmetric key (docs/ARCHITECTURE.md, Local stack). The encryption context is
 * bound as additional authenticated data, as KMS binds it, so a ciphertext moved to another
 * record fails to decrypt.
 *
 * Format: `v1.<iv b64u>.<ciphertext+tag b64u>`.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { canonicalize } from '@agent-ledger/protocol';
import type { Encryptor } from '../../domain/ports.js';

const TAG_BYTES = 16;

export class FileEncryptor implements Encryptor {
  private key: Promise<Buffer> | undefined;

  constructor(private readonly path: string) {}

  private loadKey(): Promise<Buffer> {
    this.key ??= readFile(this.path).then((bytes) => {
      if (bytes.length !== 32) throw new Error(`${this.path} must hold exactly 32 bytes (AES-256 key)`);
      return bytes;
    });
    return this.key;
  }

  async encrypt(plaintext: string, context: Record<string, string>): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.loadKey(), iv);
    cipher.setAAD(Buffer.from(canonicalize(context)));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  async decrypt(ciphertext: string, context: Record<string, string>): Promise<string> {
    const [version, ivText, sealedText] = ciphertext.split('.');
    if (version !== 'v1' || !ivText || !sealedText) throw new Error('unrecognized ciphertext format');
    const sealed = Buffer.from(sealedText, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', await this.loadKey(), Buffer.from(ivText, 'base64url'));
    decipher.setAAD(Buffer.from(canonicalize(context)));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  }

  async ping(): Promise<void> {
    await this.loadKey();
  }
}
