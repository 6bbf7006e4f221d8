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
import { payloadText, storedReceipt } from './operation-evidence.js';
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

/** A payload object that no longer parses is treated as absent (the bundle's payload check then says "not covered"). */
function parsePayload(text: string | null): { payload?: Payload } {
  if (text === null) return {};
  try {
    return { payload: JSON.parse(text) as Payload };
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
  const payloads = new Array<{ payload?: Payload }>(items.length).fill({});
  const [proven] = await Promise.all([
    proveMembers(items),
    forEachBounded(items, OBJECT_READ_CONCURRENCY, async (item, i) => {
      const [receipt, text] = await Promise.all([storedReceipt(item), options.payloads ? payloadText(item) : Promise.resolve(null)]);
      // Every committed row stores its receipt; a missing one stays missing, and the bundle's verifier says so.
      receipts[i] = receipt as Receipt;
      payloads[i] = parsePayload(text);
    }),
  ]);
  return items.map((row, i) => {
    const receipt = receipts[i] as Receipt;
    const member = proven.get(row.operation_id);
    const entry: ExportOperation = {
      row: storedOperationView(row),
      record: signedRecord(row),
      ...payloads[i],
      ...(row.payload_erased ? { payload_erased: row.payload_erased } : {}),
      receipt,
      ...(member ? { proof: member.proof } : {}),
    };
    return { item: row, entry, ...(member ? { epoch: member.epoch } : {}) };
  });
}
