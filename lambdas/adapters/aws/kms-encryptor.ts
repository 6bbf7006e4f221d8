/** Secret encryption with the symmetric KMS key; the encryption context binds a ciphertext to its record. Throttled calls are counted (kms-throttles.ts). */
import { DecryptCommand, DescribeKeyCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { Encryptor } from '../../domain/ports.js';
import { countingThrottles } from './kms-throttles.js';

export class KmsEncryptor implements Encryptor {
  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
  ) {}

  async encrypt(plaintext: string, context: Record<string, string>): Promise<string> {
    const out = await countingThrottles(
      this.kms.send(new EncryptCommand({ KeyId: this.keyId, Plaintext: Buffer.from(plaintext, 'utf8'), EncryptionContext: context })),
    );
    if (!out.CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
    return `kms.${Buffer.from(out.CiphertextBlob).toString('base64url')}`;
  }

  async decrypt(ciphertext: string, context: Record<string, string>): Promise<string> {
    if (!ciphertext.startsWith('kms.')) throw new Error('unrecognized ciphertext format');
    const out = await countingThrottles(
      this.kms.send(
        new DecryptCommand({
          KeyId: this.keyId,
          CiphertextBlob: Buffer.from(ciphertext.slice(4), 'base64url'),
          EncryptionContext: context,
        }),
      ),
    );
    if (!out.Plaintext) throw new Error('KMS Decrypt returned no plaintext');
    return Buffer.from(out.Plaintext).toString('utf8');
  }

  async ping(): Promise<void> {
    await this.kms.send(new DescribeKeyCommand({ KeyId: this.keyId }));
  }
}
