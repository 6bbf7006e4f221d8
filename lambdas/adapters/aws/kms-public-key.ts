/**
 * The raw public half (base64url x, RFC 8037) of an ECC_NIST_EDWARDS25519 KMS key, from
 * GetPublicKey's DER SubjectPublicKeyInfo (RFC 8410), as the receipt signer and the receipt-key
 * attestor publish and check it.
 */
import { createPublicKey } from 'node:crypto';
import { GetPublicKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { countingThrottles } from './kms-throttles.js';

export async function kmsEd25519PublicX(kms: KMSClient, keyId: string): Promise<string> {
  const out = await countingThrottles(kms.send(new GetPublicKeyCommand({ KeyId: keyId })));
  if (!out.PublicKey) throw new Error('KMS GetPublicKey returned no key');
  const x = createPublicKey({ key: Buffer.from(out.PublicKey), format: 'der', type: 'spki' }).export({ format: 'jwk' }).x;
  if (!x) throw new Error(`KMS key ${keyId} is not an Ed25519 key`);
  return x;
}
