/**
 * One TransactWriteItems for an identity or organization change together with its admin
 * event (docs/API.md §6.3; admin-events.ts). Each item may say which domain error its failed
 * condition means, so a cancelled transaction becomes the client's error (docs/ARCHITECTURE.md,
 * "Adapters translate": a cancellation reason names the item whose condition failed).
 */
import { conflict, type LedgerError } from '../shared/errors.js';
import { CONDITION_FAILED, TRANSACTION_CONFLICT, transact as transactWrite, type TransactItem } from './dynamo.js';

export type { TransactItem };

export interface GuardedItem {
  item: TransactItem;
  /** The error when this item's condition fails; without it the failure is unexpected (a 500). */
  onConditionFailed?: () => LedgerError;
}

/** One transaction through the shared runner (dynamo.ts), its cancellation reasons mapped to domain errors. */
export async function transact(items: readonly GuardedItem[]): Promise<void> {
  const result = await transactWrite(items.map((entry) => entry.item));
  if (result.committed) return;
  for (const [index, reason] of result.reasons.entries()) {
    const mapped = reason.code === CONDITION_FAILED ? items[index]?.onConditionFailed : undefined;
    if (mapped) throw mapped();
  }
  // Another transaction touched the same items at the same moment: the client may retry.
  if (result.reasons.some((reason) => reason.code === TRANSACTION_CONFLICT)) {
    throw conflict('a concurrent change to the same data won; retry the request');
  }
  throw new Error(`transaction cancelled: ${result.reasons.map((reason) => reason.code).join(', ')}`);
}
