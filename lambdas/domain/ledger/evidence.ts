/**
 * An operation's evidence, whole: the stored row, the record as the agent signed it, the
 * payload (when asked for and still stored), the receipt, and the inclusion proof with its
 * epoch once one covers the operation. This is the one place that knows where each part is
 * kept (row in the table, payload and receipt objects in the data bucket, proofs from the
 * epoch's leaf list); exports read evidence only through here, so a change of where
 * payloads or receipts live is a change of this file alone.
 */
import type { Receipt } from '@agent-ledger/protocol';
import { forEachBounded } from '../../shared/bounded.js';
import type { OperationItem } from '../../store/ledger-items.js';
import { getJsonText } from '../../store/objects.js';
import { readOperations } from '../../store/operations.js';
import type { Epoch } from '../../store/epochs.js';
import { proveMembers } from '../epochs/inclusion.js';
import { rowToRecord, storedOperationView } from './operation-row.js';
import { loadReceipt, type ReceiptPorts } from './receipt-completion.js';
import type { ExportOperation, SignedRecord } from '@agent-ledger/protocol';

export interface OperationEvidence {
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
 * The evidence of `operationIds` of one organization, in the order given. Receipts that a
 * failure after commit left unwritten are completed on the way (receipt-completion.ts), as a
 * GET would. Throws InclusionEvidenceError when an epoch's evidence is damaged.
 *
 * @example
 * const page = await loadEvidence(ports, orgId, ids, { payloads: true });
 * for (const { entry, epoch } of page) out(writer.addOperation(entry, epoch));
 */
export async function loadEvidence(
  ports: ReceiptPorts,
  orgId: string,
  operationIds: readonly string[],
  options: { payloads: boolean },
): Promise<OperationEvidence[]> {
  const items = await readOperations(orgId, operationIds);
  const receipts = new Array<{ row: OperationItem; receipt: Receipt }>(items.length);
  const payloads = new Array<{ payload?: Payload }>(items.length).fill({});
  const [proven] = await Promise.all([
    proveMembers(items),
    forEachBounded(items, OBJECT_READ_CONCURRENCY, async (item, i) => {
      const [{ row, stored }, payloadText] = await Promise.all([
        loadReceipt(ports, item),
        options.payloads ? getJsonText(item.store_payload_key) : Promise.resolve(null),
      ]);
      receipts[i] = { row, receipt: stored as Receipt };
      payloads[i] = parsePayload(payloadText);
    }),
  ]);
  return items.map((item, i) => {
    const { row, receipt } = receipts[i] as { row: OperationItem; receipt: Receipt };
    const member = proven.get(item.operation_id);
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
