/**
 * Many operations' evidence at once, as export bundle entries (docs/EXPORT.md): the stored
 * row, the record as the agent signed it, the payload (when asked for and still stored), the
 * receipt, and the inclusion proof with its epoch once one covers the operation. Where each
 * part is kept is operation-evidence.ts's business (docs/STORAGE.md); this file reads a
 * page's rows in one batch and proves them against each epoch once.
 */
import type { ExportOperation, Receipt, SignedRecord } from '@agent-ledger/protocol';
import { forEachBounded } from '../../shared/bounded.js';
import type { OperationItem } from '../../store/ledger-items.js';
import { readOperations } from '../../store/operations.js';
import type { Epoch } from '../../store/epochs.js';
import { proveMembers } from '../epochs/inclusion.js';
import { storedPayload, storedReceipt, type StoredPayload } from './operation-evidence.js';
import { rowToRecord, storedOperationView } from './operation-row.js';

export interface ExportEvidence {
  /** The full stored item (bookkeeping included: agent_public_key, receipt reference, epoch membership). */
  item: OperationItem;
  /** Exactly the export bundle's operation entry (docs/EXPORT.md, body.operations[i]). */
  entry: ExportOperation;
  /** The epoch `entry.proof` points to. */
  epoch?: Epoch;
}

/** Object reads in flight per call (payloads and receipts of a page). */
const OBJECT_READ_CONCURRENCY = 32;

type Payload = ExportOperation['payload'];

function signedRecord(item: OperationItem): SignedRecord {
  const { payload: _payload, ...record } = rowToRecord(item);
  return record;
}

/**
 * The entry's payload members (docs/EXPORT.md): the payload as stored, even one that no longer
 * hashes to payload_hash (the verifier then fails it); the erasure mark; nothing for a payload
 * that is missing or no longer parses, which the verifier fails as destroyed (the row names
 * its stored copy and no mark says it was erased).
 */
function payloadMembers(stored: StoredPayload): Pick<ExportOperation, 'payload' | 'payload_erased'> {
  if (stored.state === 'erased') return { payload_erased: stored.mark };
  if (stored.state === 'missing') return {};
  try {
    return { payload: JSON.parse(stored.text) as Payload };
  } catch {
    return {};
  }
}

/**
 * The evidence of `operationIds` of one organization, in the order given, as export bundle
 * entries. Throws InclusionEvidenceError when an epoch's evidence is damaged.
 *
 * @example
 * const page = await loadEvidencePage(orgId, ids, { payloads: true });
 * for (const { entry, epoch } of page) out(writer.addOperation(entry, epoch));
 */
export async function loadEvidencePage(
  orgId: string,
  operationIds: readonly string[],
  options: { payloads: boolean },
): Promise<ExportEvidence[]> {
  const items = await readOperations(orgId, operationIds);
  const receipts = new Array<Receipt>(items.length);
  const payloads = new Array<Pick<ExportOperation, 'payload' | 'payload_erased'>>(items.length).fill({});
  const [proven] = await Promise.all([
    proveMembers(items),
    forEachBounded(items, OBJECT_READ_CONCURRENCY, async (item, i) => {
      const [receipt, stored] = await Promise.all([storedReceipt(item), options.payloads ? storedPayload(item) : undefined]);
      // Every committed row stores its receipt; a missing one stays missing, and the bundle's verifier says so.
      receipts[i] = receipt as Receipt;
      // Without payloads an erasure is still marked, from the row (docs/EXPORT.md).
      payloads[i] = stored ? payloadMembers(stored) : item.payload_erased ? { payload_erased: item.payload_erased } : {};
    }),
  ]);
  return items.map((row, i) => {
    const receipt = receipts[i] as Receipt;
    const member = proven.get(row.operation_id);
    const entry: ExportOperation = {
      row: storedOperationView(row),
      record: signedRecord(row),
      ...payloads[i],
      receipt,
      ...(member ? { proof: member.proof } : {}),
    };
    return { item: row, entry, ...(member ? { epoch: member.epoch } : {}) };
  });
}
