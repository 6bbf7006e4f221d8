/**
 * The two calls every ECC_NIST_EDWARDS25519 KMS key of the service is used through, the receipt
 * signer's and the receipt-key attestor's alike:
 * - its raw public half (base64url x, RFC 8037), from GetPublicKey's DER SubjectPublicKeyInfo
 *   (RFC 8410);
 * - `Sign` with `ED25519_SHA_512` and MessageType `RAW`, which is pure Ed25519 (RFC 8032
 *   PureEdDSA) over the message; the private half never leaves KMS.
 * Throttled calls are counted (kms-throttles.ts); what a throttle means is the caller's to say.
 */
import { createPublicKey } from 'node:crypto';
import { GetPublicKeyCommand, SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import { countingThrottles } from './kms-throttles.js';

export async function kmsEd25519PublicX(kms: KMSClient, keyId: string): Promise<string> {
  const out = await countingThrottles(kms.send(new GetPublicKeyCommand({ KeyId: keyId })));
  if (!out.PublicKey) throw new Error('KMS GetPublicKey returned no key');
  const x = createPublicKey({ key: Buffer.from(out.PublicKey), format: 'der', type: 'spki' }).export({ format: 'jwk' }).x;
  if (!x) throw new Error(`KMS key ${keyId} is not an Ed25519 key`);
  return x;
}

export async function kmsEd25519Sign(kms: KMSClient, keyId: string, message: Uint8Array): Promise<Uint8Array> {
  const out = await countingThrottles(
    kms.send(new SignCommand({ KeyId: keyId, Message: message, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' })),
  );
  if (!out.Signature || out.Signature.length !== 64) throw new Error(`KMS key ${keyId} returned no Ed25519 signature`);
  return out.Signature;
}
