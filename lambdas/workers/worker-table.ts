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
    // scripts/bench-seal.ts, sealing one epoch of 100,000 operations: the whole benchmark
    // process peaked at 381 MB resident (sealing itself added 116 MB to a process already
    // holding the 100,000 fixtures). 1024 MB leaves room for larger epochs and gives the
    // hashing and JSON work 0.58 vCPU instead of 0.29 at 512 MB.
    memorySize: 1024,
    // Two: a run that reaches the next schedule tick may overlap it (the per-organization
    // leases make that safe), and reserved concurrency keeps API traffic from starving the
    // sealer while capping it, so a backlog never fans out into many sealers at once.
    reservedConcurrency: 2,
  },
];
