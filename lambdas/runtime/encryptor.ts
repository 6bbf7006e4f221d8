/** Envelope encryption of secrets (domain/ports.ts Encryptor): KMS in AWS, the AES-256-GCM key file on one machine. */
import { KmsEncryptor } from '../adapters/aws/kms-encryptor.js';
import { FileEncryptor } from '../adapters/local/file-encryptor.js';
import { config } from '../config.js';
import type { Encryptor } from '../domain/ports.js';
import { once } from '../shared/once.js';
import { kms } from './kms.js';

export const encryptor = once((): Encryptor => {
  const source = config().encryptor;
  return source.kind === 'kms' ? new KmsEncryptor(kms(), source.keyId) : new FileEncryptor(source.path);
});
