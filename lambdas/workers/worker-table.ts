/**
 * Every background worker. An entry appears here together with its handler module; CDK
 * and the local stack read this list.
 */
import { PDF_FONT_DIR, PDF_FONT_FILES } from '../shared/pdf-fonts.js';
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
  // Epoch sealer (docs/PROTOCOL.md, Merkle epochs): seals windows, sends epoch.created, anchors roots (RFC 3161).
  {
    id: 'SealEpochs',
    handler: 'seal-epochs',
    trigger: { kind: 'schedule' },
    // signer: each new epoch's log checkpoint (docs/CHECKPOINTS.md).
    uses: ['table:read', 'table:write', 'anchors:read', 'anchors:write', 'signer'],
    // One schedule period: a longer run overlaps the next, which the per-organization lease allows.
    timeoutSeconds: 300,
    // A run holds an epoch's leaves while it hashes them, so its memory grows with the largest
    // epoch (scripts/bench-seal.ts measures the peak for one of 100,000 operations). 1024 MB
    // leaves room for larger epochs, and Lambda gives CPU in proportion to memory: the hashing
    // and JSON work gets twice the CPU of the 512 MB default.
    memorySize: 1024,
    // Two: a run that reaches the next schedule tick may overlap it (the per-organization
    // leases make that safe), and reserved concurrency keeps API traffic from starving the
    // sealer while capping it, so a backlog never fans out into many sealers at once.
    reservedConcurrency: 2,
  },
  // Exports (docs/API.md §4.8): writes the JSON bundle or the PDF report of one export job per message, re-queueing itself to go on.
  {
    id: 'ExportFiles',
    handler: 'export-files',
    // At most 2 runs at once (the least SQS allows): exports never take the account's Lambda
    // concurrency; each organization has at most 5 queued or running (create-export.ts), and
    // organizations take turns (fairBy), so one organization's backlog cannot starve another's.
    trigger: { kind: 'queue', queue: 'exports', batchSize: 1, maxConcurrency: 2, fairBy: 'org_id' },
    // signer: the manifest signature; table:write: the export's progress and state; data:erase-exports:
    // the files of an export restarted because a payload it held was erased (domain/exports/run-export.ts).
    uses: ['table:read', 'table:write', 'data:read', 'data:write', 'data:erase-exports', 'anchors:read', 'signer', 'queue:exports'],
    // The most Lambda allows: a run writes until a minute before it, then re-queues the rest.
    timeoutSeconds: 900,
    // A PDF report holds its bundle parsed while it draws the pages (docs/EXPORT.md "Memory"); memory also buys CPU.
    memorySize: 2048,
    // The PDF fonts, loaded from the bundle's folder rather than inlined (domain/exports/pdf/fonts.ts).
    bundleAssets: { dir: PDF_FONT_DIR, packageFiles: Object.values(PDF_FONT_FILES) },
  },
  // Webhooks (docs/WEBHOOKS.md): events → one message per subscribed webhook.
  {
    id: 'WebhookFanout',
    handler: 'webhook-fanout',
    trigger: { kind: 'queue', queue: 'events', batchSize: 10 },
    uses: ['table:read', 'queue:deliveries'],
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
