/**
 * Encrypted Cognito refresh tokens kept while an address is unverified (the Cognito adapter,
 * adapters/aws/cognito-refresh-tokens.ts, says why and does the encryption). This module only
 * stores and reads the ciphertext.
 *
 * | item                  | pk                              | sk       |
 * |-----------------------|---------------------------------|----------|
 * | pending verification  | COGNITOVERIFY#<sha256 of email> | REFRESH  |  TTL 30 days
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients.js';
import { deleteItem, getItem, table } from './dynamo.js';

const keyOf = (emailHash: string) => ({ pk: `COGNITOVERIFY#${emailHash}`, sk: 'REFRESH' });

interface RefreshCiphertextItem {
  ciphertext: string;
  expires_at_s: number;
}

export async function putRefreshCiphertext(emailHash: string, item: RefreshCiphertextItem): Promise<void> {
  await dynamo().send(new PutCommand({ TableName: table(), Item: { ...keyOf(emailHash), type: 'cognito_refresh', ...item } }));
}

export const getRefreshCiphertext = (emailHash: string) => getItem<RefreshCiphertextItem>(keyOf(emailHash));

export const deleteRefreshCiphertext = (emailHash: string) => deleteItem(keyOf(emailHash));
