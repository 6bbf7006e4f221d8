// The table store of Cognito refresh tokens kept for email verification
// (adapters/aws/cognito-refresh-tokens.ts) against DynamoDB Local and the file encryptor:
// the token is stored only encrypted, is bound to its email, and can be removed.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { sha256B64u } from '@agent-ledger/protocol';
import { describe, expect, it } from 'vitest';
import { tableRefreshTokenStore } from '../../lambdas/adapters/aws/cognito-refresh-tokens.js';
import { config } from '../../lambdas/config.js';
import { encryptor } from '../../lambdas/runtime/encryptor.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { useLedgerStack } from '../support/ledger-stack.js';

useLedgerStack();

describe('tableRefreshTokenStore', () => {
  const refreshTokens = tableRefreshTokenStore(encryptor);
  it('saves encrypted, loads by email (any case), removes', async () => {
    const email = `keep.${Date.now()}@example.test`;
    await refreshTokens.save(email, 'refresh-secret-value');
    const key = { pk: `COGNITOVERIFY#${sha256B64u(new TextEncoder().encode(email))}`, sk: 'REFRESH' };
    const stored = (await dynamo().send(new GetCommand({ TableName: config().tableName, Key: key }))).Item!;
    expect(JSON.stringify(stored)).not.toContain('refresh-secret-value');
    expect(JSON.stringify(stored)).not.toContain(email);
    expect(stored.expires_at_s).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400);

    expect(await refreshTokens.load(email.toUpperCase())).toBe('refresh-secret-value');
    expect(await refreshTokens.load(`other.${email}`)).toBeUndefined();
    await refreshTokens.remove(email);
    expect(await refreshTokens.load(email)).toBeUndefined();
  });
});
