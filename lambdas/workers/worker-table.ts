/**
 * Every background worker. An entry appears here together with its handler module; CDK
 * and the local stack read this list.
 */
import type { WorkerSpec } from './worker-spec.js';

export const workerList: readonly WorkerSpec[] = [
  // The outbox forwarder (docs/EVENTS.md): operation.accepted and epoch.created from the table's stream to the events queue.
  {
    id: 'ForwardEvents',
    handler: 'forward-events',
    trigger: { kind: 'stream', batchSize: 100, itemTypes: ['operation', 'epoch'] },
    uses: ['queue:events'],
    timeoutSeconds: 60,
  },
  // Epoch sealer (PROTOCOL.md, Merkle epochs): seals windows, sends epoch.created, anchors roots (RFC 3161).
  {
    id: 'SealEpochs',
    handler: 'seal-epochs',
    trigger: { kind: 'schedule' },
    uses: ['table:read', 'table:write', 'anchors:read', 'anchors:write'],
    // One schedule period: a longer run overlaps the next, which the per-organization lease allows.
    timeoutSeconds: 300,
  },
];
