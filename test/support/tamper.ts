/**
 * Corrupting stored evidence behind the service's back, for tests that check verify (and
 * export verification) catch it. Wherever the evidence is kept (docs/STORAGE.md: a small
 * payload and every receipt in the operation row, a large payload as an object, receipts of
 * rows written before receipts moved into the row as objects), these helpers change it
 * there, so a storage change needs an edit here only. Uses the process's configured table
 * and bucket (the test stack sets them).
 */
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../lambdas/config.js';
import { payloadKeyOf } from '../../lambdas/domain/ledger/operation-row.js';
import { dynamo, s3 } from '../../lambdas/store/clients.js';
import { ledgerKeys, type OperationItem } from '../../lambdas/store/ledger-items.js';

async function row(orgId: string, operationId: string): Promise<OperationItem> {
  const out = await dynamo().send(new GetCommand({ TableName: config().tableName, Key: ledgerKeys.operation(orgId, operationId), ConsistentRead: true }));
  if (!out.Item) throw new Error(`no operation ${operationId} in ${orgId}`);
  return out.Item as OperationItem;
}

async function update(orgId: string, operationId: string, expression: string, values?: Record<string, unknown>) {
  await dynamo().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: ledgerKeys.operation(orgId, operationId),
      UpdateExpression: expression,
      ...(values ? { ExpressionAttributeValues: values } : {}),
    }),
  );
}

async function putObject(key: string, body: string): Promise<void> {
  await s3().send(new PutObjectCommand({ Bucket: config().dataBucket, Key: key, Body: body, ContentType: 'application/json' }));
}

/** Replaces the stored payload's bytes with `text`; null deletes them without an erasure mark (destroyed, not erased). */
export async function tamperPayload(orgId: string, operationId: string, text: string | null): Promise<void> {
  const current = await row(orgId, operationId);
  if (current.payload_json !== undefined) {
    if (text === null) await update(orgId, operationId, 'REMOVE payload_json');
    else await update(orgId, operationId, 'SET payload_json = :p', { ':p': text });
    return;
  }
  const key = payloadKeyOf(current);
  if (text === null) await s3().send(new DeleteObjectCommand({ Bucket: config().dataBucket, Key: key }));
  else await putObject(key, text);
}

/**
 * Replaces the stored receipt with `replacement` (any JSON value: another operation's
 * receipt, or something that is not a receipt at all). A receipt kept in the row keeps only
 * what the row stores of it (its hash and signature, the rest restates the row).
 */
export async function tamperReceipt(orgId: string, operationId: string, replacement: unknown): Promise<void> {
  const current = await row(orgId, operationId);
  if (current.store_receipt_key && current.receipt_hash === undefined) {
    await putObject(current.store_receipt_key, JSON.stringify(replacement));
    return;
  }
  const { receipt_hash: hash, service_kid: kid, service_signature: signature } = (replacement ?? {}) as Record<string, unknown>;
  if (typeof hash === 'string' && typeof kid === 'string' && typeof signature === 'string') {
    await update(orgId, operationId, 'SET receipt_hash = :h, service_kid = :k, service_signature = :s', { ':h': hash, ':k': kid, ':s': signature });
  } else {
    await update(orgId, operationId, 'REMOVE receipt_hash, service_kid, service_signature');
  }
}
