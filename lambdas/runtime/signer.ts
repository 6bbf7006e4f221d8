/**
 * The receipt signer (domain/ports.ts Signer): KMS in AWS, the key file on one machine,
 * chosen from config.ts once per process. Only functions whose route uses 'signer' import it.
 */
import { ed25519Jwk } from '@agent-ledger/protocol';
import { KmsSigner } from '../adapters/aws/kms-signer.js';
import { FileSigner } from '../adapters/local/file-signer.js';
import { config } from '../config.js';
import { MetricUnit, recordMetrics } from '../metrics.js';
import type { Signer } from '../domain/ports.js';
import { once } from '../shared/once.js';
import { kms } from './kms.js';

export const signer = once((): Signer => {
  const { signer: source, retiredServiceKeys } = config();
  const retired = retiredServiceKeys.map((x) => ed25519Jwk(x));
  return timed(source.kind === 'kms' ? new KmsSigner(kms(), source.keyId, retired) : new FileSigner(source.path, retired));
});

/** The signer, with the latency of each signature recorded (ReceiptSigningLatency, lambdas/metrics.ts): KMS Sign is on the hot path. */
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
