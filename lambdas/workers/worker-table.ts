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
  // Webhooks (README, Webhooks): events → one message per subscribed webhook; operation.accepted
  // may complete the receipt it belongs to (domain/ledger/receipt-completion.ts).
  {
    id: 'WebhookFanout',
    handler: 'webhook-fanout',
    trigger: { kind: 'queue', queue: 'events', batchSize: 10 },
    uses: ['table:read', 'table:write', 'data:write', 'signer', 'queue:deliveries'],
    timeoutSeconds: 30,
  },
  // One attempt per message, each with a 10 s deadline; retries are delayed messages.
  {
    id: 'WebhookDeliveries',
    handler: 'webhook-deliveries',
    // Enough batches at once that endpoints which hang for their full 10 s leave room for
    // the others (each batch runs its attempts in parallel).
    trigger: { kind: 'queue', queue: 'deliveries', batchSize: 10, maxConcurrency: 200 },
    uses: ['table:read', 'table:write', 'secrets:decrypt', 'queue:deliveries'],
    timeoutSeconds: 30,
  },
];
