/**
 * Everything that happens after a submission commits: the `operation.accepted` message on
 * the events queue (its SQS MessageId becomes the receipt's queue_message_id), the signed
 * receipt, its reference on the row and the receipt object in S3.
 *
 * Order, and why:
 *   1. send the queue message                      → message id M
 *   2. sign the receipt built from the row and M   (deterministic)
 *   3. at once, in parallel:
 *      - UpdateItem: queue_message_id, store_receipt_key, receipt_created_at,
 *        condition attribute_not_exists(queue_message_id)
 *      - put the receipt object (canonical JSON) under a key named by M
 *      If the update lost the race (another completion got there first): re-read, adopt the
 *      winner's id and make sure its object exists. The object key carries M, so every write
 *      to one key has the same bytes and a loser's object is only an orphan.
 * A crash before step 3 leaves a row without reference, and a failed object write a
 * reference without object. Either way the next GET or verify, or a retry, finishes the job
 * (`loadReceipt`), so no committed operation stays without a verifiable receipt.
 *
 * A failure in steps 1-3 can leave a message on the queue whose id the row never adopts.
 * The webhook worker (events queue consumer) must therefore deliver an
 * operation.accepted message only when its id equals the row's queue_message_id; when the
 * row has none yet, it completes the receipt with its own message id
 * (`completeReceipt(ports, row, { queueMessageId })`) and then delivers.
 */
import { canonicalize, type Receipt } from '@agent-ledger/protocol';
import { objectKeys, type OperationItem } from '../../store/ledger-items.js';
import { getJsonText, objectExists, putJsonObject } from '../../store/objects.js';
import { readOperation, recordReceiptReference } from '../../store/operations.js';
import type { Ports } from '../ports.js';
import type { EventMessage, OperationAcceptedData } from '../events.js';
import { signReceipt } from './receipt-builder.js';

export interface CompletedReceipt {
  /** The row with its receipt reference. */
  row: OperationItem;
  receipt: Receipt;
}

function acceptedEvent(row: OperationItem): EventMessage {
  // SPEC.md §6.2: for operation.accepted, data holds operation_id and agent_id.
  return {
    event: 'operation.accepted',
    org_id: row.org_id,
    timestamp: row.created_at,
    data: { operation_id: row.operation_id, agent_id: row.agent_id } satisfies OperationAcceptedData,
  };
}

/** What completing a receipt needs: the events queue (its message id) and the receipt signer. */
export type ReceiptPorts = Pick<Ports, 'signer' | 'queue'>;

/** Steps 1-3 for a row without a receipt reference; a row that has one only gets its object (re)written. */
export async function completeReceipt(ports: ReceiptPorts, row: OperationItem, options: { queueMessageId?: string } = {}): Promise<CompletedReceipt> {
  if (row.queue_message_id) return storeReceipt(ports, row);
  const messageId = options.queueMessageId ?? (await ports.queue.send('events', { body: acceptedEvent(row) }));
  const receipt = await signReceipt(ports.signer, row, messageId);
  const reference = {
    queueMessageId: messageId,
    storeReceiptKey: objectKeys.receipt(row.org_id, row.operation_id, messageId),
    createdAt: Date.now(),
  };
  const [won] = await Promise.all([
    recordReceiptReference(row.org_id, row.operation_id, reference),
    putJsonObject(reference.storeReceiptKey, canonicalize(receipt)),
  ]);
  if (won) {
    const completed: OperationItem = {
      ...row,
      queue_message_id: reference.queueMessageId,
      store_receipt_key: reference.storeReceiptKey,
      receipt_created_at: reference.createdAt,
    };
    return { row: completed, receipt };
  }
  const current = await readOperation(row.org_id, row.operation_id);
  if (!current?.queue_message_id) throw new Error(`operation ${row.operation_id}: receipt reference vanished`);
  // The winner writes its object in parallel with its reference; write it here only if it is
  // still missing, so racing completions do not all rewrite one key.
  if (await objectExists(current.store_receipt_key!)) {
    return { row: current, receipt: await signReceipt(ports.signer, current, current.queue_message_id) };
  }
  return storeReceipt(ports, current);
}

/** For a row whose reference is fixed: rebuilds the receipt (same bytes) and (re)writes its object. */
async function storeReceipt(ports: ReceiptPorts, row: OperationItem): Promise<CompletedReceipt> {
  const receipt = await signReceipt(ports.signer, row, row.queue_message_id!);
  await putJsonObject(row.store_receipt_key!, canonicalize(receipt));
  return { row, receipt };
}

/**
 * The receipt as stored, completing or rewriting it first when a failure after commit left
 * it missing (lazy repair for GET and verify). A stored object is returned as found, even if
 * it does not parse: verify must judge what is stored, not a fresh copy.
 */
export async function loadReceipt(ports: ReceiptPorts, row: OperationItem): Promise<{ row: OperationItem; stored: unknown }> {
  if (!row.queue_message_id || !row.store_receipt_key) {
    const completed = await completeReceipt(ports, row);
    return { row: completed.row, stored: completed.receipt };
  }
  const text = await getJsonText(row.store_receipt_key);
  if (text === null) {
    const completed = await storeReceipt(ports, row);
    return { row, stored: completed.receipt };
  }
  try {
    return { row, stored: JSON.parse(text) as unknown };
  } catch {
    return { row, stored: null };
  }
}
