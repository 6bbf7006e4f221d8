/**
 * TransactWriteItems with its cancellation reasons surfaced as data (DESIGN.md, "Adapters
 * translate": a cancelled transaction becomes a domain error from its reasons). Any other
 * failure (throttling after the SDK's retries, network, validation) is thrown unchanged and
 * ends as INTERNAL_ERROR, with nothing written: a transaction is all or nothing.
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One item's reason, in request order. `item` is the old item when its condition failed (ALL_OLD). */
export interface CancellationReason {
  /** 'None', 'ConditionalCheckFailed', 'TransactionConflict', ... */
  code: string;
  item: Record<string, AttributeValue> | undefined;
}

export type TransactResult = { committed: true } | { committed: false; reasons: CancellationReason[] };

export const CONDITION_FAILED = 'ConditionalCheckFailed';
export const TRANSACTION_CONFLICT = 'TransactionConflict';

/** Reasons that describe the data (a condition) or a concurrent writer, not an infrastructure failure. */
const EXPECTED_CODES = new Set(['None', CONDITION_FAILED, TRANSACTION_CONFLICT]);

export class UnexpectedCancellationError extends Error {
  constructor(readonly reasons: CancellationReason[]) {
    super(`transaction cancelled: ${reasons.map((reason) => reason.code).join(', ')}`);
    this.name = 'UnexpectedCancellationError';
  }
}

/**
 * Runs one transaction. A fresh ClientRequestToken per call makes the SDK's own retries of a
 * timed-out attempt idempotent: a retry of an attempt that did commit answers success instead
 * of failing its own conditions.
 */
export async function transact(items: TransactItem[]): Promise<TransactResult> {
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: randomUUID() }));
    return { committed: true };
  } catch (error) {
    if (!isCancellation(error)) throw error;
    const reasons = (error.CancellationReasons ?? []).map((reason) => ({
      code: reason.Code ?? 'None',
      item: reason.Item,
    }));
    if (reasons.length !== items.length || reasons.some((reason) => !EXPECTED_CODES.has(reason.code))) {
      throw new UnexpectedCancellationError(reasons);
    }
    return { committed: false, reasons };
  }
}

function isCancellation(error: unknown): error is TransactionCanceledException {
  return error instanceof TransactionCanceledException || (error as Error | undefined)?.name === 'TransactionCanceledException';
}

/** Reads a string attribute of a raw (unmarshalled-by-nobody) cancellation item. */
export function stringAttribute(item: Record<string, AttributeValue> | undefined, name: string): string | undefined {
  return item?.[name]?.S;
}

export function numberAttribute(item: Record<string, AttributeValue> | undefined, name: string): number | undefined {
  const raw = item?.[name]?.N;
  return raw === undefined ? undefined : Number(raw);
}
