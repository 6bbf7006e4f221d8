/**
 * Every background worker. An entry appears here together with its handler module; CDK
 * and the local stack read this list.
 */
import type { WorkerSpec } from './worker-spec.js';

export const workerList: readonly WorkerSpec[] = [
  // Epoch sealer (PROTOCOL.md, Merkle epochs): seals windows, sends epoch.created, anchors roots (RFC 3161).
  {
    id: 'SealEpochs',
    handler: 'seal-epochs',
    trigger: { kind: 'schedule' },
    uses: ['table:read', 'table:write', 'anchors:read', 'anchors:write', 'queue:events'],
    // One schedule period: a longer run overlaps the next, which the per-organization lease allows.
    timeoutSeconds: 300,
  },
];
