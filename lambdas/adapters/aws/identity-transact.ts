/**
 * One TransactWriteItems for an identity or organization change together with its admin
 * event (SPEC.md §6.3; admin-events.ts). Each item may say which domain error its failed
 * condition means, so a cancelled transaction becomes the client's error (DESIGN.md,
 * "Adapters translate": a cancellation reason names the item whose condition failed).
 */
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { config } from '../../config.js';
import { conflict, type LedgerError } from '../../domain/errors.js';
import { dynamo } from '../../runtime.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface GuardedItem {
  item: TransactItem;
  /** The error when this item's condition fails; without it the failure is unexpected (a 500). */
  onConditionFailed?: () => LedgerError;
}

/** DynamoDB's limit of items per transaction. */
export const MAX_TRANSACTION_ITEMS = 100;

interface CancellationReason {
  Code?: string;
}

export async function transact(items: readonly GuardedItem[]): Promise<void> {
  if (items.length > MAX_TRANSACTION_ITEMS) throw new Error(`transaction of ${items.length} items exceeds ${MAX_TRANSACTION_ITEMS}`);
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items.map((entry) => entry.item) }));
  } catch (error) {
    if ((error as Error).name !== 'TransactionCanceledException') throw error;
    const reasons = ((error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? []) as CancellationReason[];
    for (const [index, reason] of reasons.entries()) {
      const mapped = reason.Code === 'ConditionalCheckFailed' ? items[index]?.onConditionFailed : undefined;
      if (mapped) throw mapped();
    }
    // Another transaction touched the same items at the same moment: the client may retry.
    if (reasons.some((reason) => reason.Code === 'TransactionConflict')) {
      throw conflict('a concurrent change to the same data won; retry the request');
    }
    throw error;
  }
}

/** Table name for item builders. */
export const table = (): string => config().tableName;
