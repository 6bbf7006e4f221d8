/**
 * The receipt signer (domain/ports.ts Signer): in AWS a KMS key or the envelope key
 * (SECURITY.md, "Receipt signing modes"), the key file on one machine, chosen from config.ts
 * once per process. Only functions whose route uses 'signer' import it.
 */
import { ed25519Jwk } from '@agent-ledger/protocol';
import { EnvelopeSigner } from '../adapters/aws/envelope-signer.js';
import { KmsSigner } from '../adapters/aws/kms-signer.js';
import { ReceiptKeyAttestor } from '../adapters/aws/receipt-key-attestor.js';
import { FileSigner } from '../adapters/local/file-signer.js';
import { config } from '../config.js';
import { MetricUnit, recordMetrics } from '../metrics.js';
import type { Signer } from '../domain/ports.js';
import { once } from '../shared/once.js';
import { receiptKeyStore } from '../store/receipt-keys.js';
import { kms } from './kms.js';

export const signer = once((): Signer => {
  const { signer: source, retiredServiceKeys } = config();
  const retired = retiredServiceKeys.map((x) => ed25519Jwk(x));
  switch (source.kind) {
    case 'kms':
      return timed(new KmsSigner(kms(), source.keyId, retired));
    case 'envelope':
      return timed(new EnvelopeSigner(kms(), receiptKeyStore, source.wrapKeyId, new ReceiptKeyAttestor(kms(), source.attestKeyId), source.generation, retired));
    case 'file':
      return timed(new FileSigner(source.path, retired));
  }
});

/** The signer, with the latency of each signature recorded (ReceiptSigningLatency, lambdas/metrics.ts): KMS Sign is on the hot path, or in process with the envelope key. */
export function timed(inner: Signer): Signer {
  return {
    kid: () => inner.kid(),
    jwks: () => inner.jwks(),
    ping: () => inner.ping(),
    async sign(message) {
      const started = performance.now();
      const signature = await inner.sign(message);
      recordMetrics([{ name: 'ReceiptSigningLatency', unit: MetricUnit.Milliseconds, value: performance.now() - started }]);
      return signature;
    },
  };
}
