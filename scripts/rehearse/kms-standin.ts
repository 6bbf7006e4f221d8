/**
 * The smallest KMS that serves what the functions call (lambdas/adapters/aws/kms-signer.ts,
 * kms-encryptor.ts, envelope-signer.ts): Sign and GetPublicKey on an ECC_NIST_EDWARDS25519 key
 * (ED25519_SHA_512, MessageType RAW: pure Ed25519 over the message, RFC 8032), Encrypt, Decrypt,
 * GenerateDataKey and DescribeKey on a SYMMETRIC_DEFAULT key (AES-256-GCM, the encryption
 * context bound as associated data, as KMS binds it). KMS has no local engine; this is
 * rehearsal and test infrastructure, never product code.
 */
import { createCipheriv, createDecipheriv, createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import { generateKeyPair } from '@agent-ledger/protocol';
import { ServiceError, startJsonService, type JsonService } from './json-service.js';

interface StandInKey {
  readonly arn: string;
  readonly spec: 'ECC_NIST_EDWARDS25519' | 'SYMMETRIC_DEFAULT';
}

interface KeyMaterial extends StandInKey {
  readonly id: string;
  readonly privateKey?: KeyObject;
  readonly publicKey?: KeyObject;
  readonly secret?: Buffer;
}

/** The key a request names by id, ARN or alias-free ARN suffix. */
function find(keys: readonly KeyMaterial[], keyId: unknown): KeyMaterial {
  const key = keys.find((candidate) => candidate.arn === keyId || candidate.id === keyId);
  if (!key) throw new ServiceError('NotFoundException', `Key '${String(keyId)}' does not exist`);
  return key;
}

/** The encryption context as KMS compares it: order-independent, exact keys and values. */
function contextBytes(context: unknown): Buffer {
  const entries = Object.entries((context ?? {}) as Record<string, string>).sort(([a], [b]) => (a < b ? -1 : 1));
  return Buffer.from(JSON.stringify(entries));
}

export async function startKmsStandIn(keys: readonly StandInKey[]): Promise<JsonService> {
  const material: KeyMaterial[] = keys.map((key) => {
    const id = key.arn.slice(key.arn.lastIndexOf('/') + 1);
    if (key.spec === 'SYMMETRIC_DEFAULT') return { ...key, id, secret: randomBytes(32) };
    // The protocol's generation: it never exports a KeyObject generateKeyPairSync returned (a Node 20 deadlock, protocol/src/crypto/ed25519node.ts).
    const { privateKey } = generateKeyPair();
    return { ...key, id, privateKey, publicKey: createPublicKey(privateKey) };
  });
  /** AES-256-GCM under the key's secret, the encryption context as associated data: the blob names its key by index. */
  const seal = (key: KeyMaterial, plaintext: Buffer, context: unknown): string => {
    if (!key.secret) throw new ServiceError('InvalidKeyUsageException', 'Encrypt needs an ENCRYPT_DECRYPT key');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key.secret, iv);
    cipher.setAAD(contextBytes(context));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([material.indexOf(key)]), iv, cipher.getAuthTag(), body]).toString('base64');
  };
  const metadata = (key: KeyMaterial) => ({
    KeyId: key.id,
    Arn: key.arn,
    KeySpec: key.spec,
    KeyUsage: key.spec === 'SYMMETRIC_DEFAULT' ? 'ENCRYPT_DECRYPT' : 'SIGN_VERIFY',
    KeyState: 'Enabled',
    Enabled: true,
  });
  return startJsonService('KMS', 'application/x-amz-json-1.1', {
    DescribeKey: (input) => ({ KeyMetadata: metadata(find(material, input.KeyId)) }),
    GetPublicKey: (input) => {
      const key = find(material, input.KeyId);
      if (!key.publicKey) throw new ServiceError('UnsupportedOperationException', 'GetPublicKey needs an asymmetric key');
      return {
        KeyId: key.arn,
        KeySpec: key.spec,
        KeyUsage: 'SIGN_VERIFY',
        SigningAlgorithms: ['ED25519_SHA_512', 'ED25519_PH_SHA_512'],
        PublicKey: key.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
      };
    },
    Sign: (input) => {
      const key = find(material, input.KeyId);
      if (!key.privateKey) throw new ServiceError('InvalidKeyUsageException', 'Sign needs a SIGN_VERIFY key');
      if (input.SigningAlgorithm !== 'ED25519_SHA_512' || input.MessageType !== 'RAW') {
        throw new ServiceError('ValidationException', `stand-in signs ED25519_SHA_512 over RAW messages, got ${String(input.SigningAlgorithm)}/${String(input.MessageType)}`);
      }
      const signature = sign(null, Buffer.from(String(input.Message), 'base64'), key.privateKey);
      return { KeyId: key.arn, Signature: signature.toString('base64'), SigningAlgorithm: 'ED25519_SHA_512' };
    },
    Encrypt: (input) => {
      const key = find(material, input.KeyId);
      return { KeyId: key.arn, CiphertextBlob: seal(key, Buffer.from(String(input.Plaintext), 'base64'), input.EncryptionContext), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    },
    // A data key of NumberOfBytes random bytes, returned in plaintext and sealed as Encrypt seals (the envelope receipt key's seed).
    GenerateDataKey: (input) => {
      const key = find(material, input.KeyId);
      const bytes = Number(input.NumberOfBytes ?? (input.KeySpec === 'AES_128' ? 16 : 32));
      if (!Number.isInteger(bytes) || bytes < 1 || bytes > 1024) throw new ServiceError('ValidationException', 'NumberOfBytes must be between 1 and 1024');
      const plaintext = randomBytes(bytes);
      return { KeyId: key.arn, Plaintext: plaintext.toString('base64'), CiphertextBlob: seal(key, plaintext, input.EncryptionContext) };
    },
    Decrypt: (input) => {
      const blob = Buffer.from(String(input.CiphertextBlob), 'base64');
      const key = material[blob[0] ?? -1];
      if (!key?.secret || (input.KeyId !== undefined && find(material, input.KeyId) !== key)) {
        throw new ServiceError('IncorrectKeyException', 'the ciphertext was not made under this key');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.secret, blob.subarray(1, 13));
        decipher.setAuthTag(blob.subarray(13, 29));
        decipher.setAAD(contextBytes(input.EncryptionContext));
        const plaintext = Buffer.concat([decipher.update(blob.subarray(29)), decipher.final()]);
        return { KeyId: key.arn, Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
      } catch {
        throw new ServiceError('InvalidCiphertextException', 'the ciphertext or its encryption context does not match');
      }
    },
  });
}

