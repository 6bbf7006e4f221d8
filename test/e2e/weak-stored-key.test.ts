/**
 * A weak key already in the table verifies nothing (docs/PROTOCOL.md, Notation): a key
 * stored before registration checked keys, swapped straight into the table, and a record
 * "signed" with R = identity, S = 0 (which node's verify accepts for every message under it)
 * is INVALID_SIGNATURE. Registration's own refusals: weak-agent-keys.test.ts, over HTTP alone.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ledgerKeys } from '../../lambdas/store/ledger-items.js';
import { config } from '../../lambdas/config.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { type Api } from '../support/http-client.js';
import { seedOrg, seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { FORGED_SIGNATURE, IDENTITY } from '../support/weak-keys.js';

const stack = useLedgerStack();
let orgId: string;
let api: Api;

beforeAll(async () => {
  orgId = await seedOrg();
  api = stack.api((await seedUser(orgId, 'integration_engineer')).token);
});

describe('a weak key already stored', () => {
  it('a forged record under a weak key already in the table is INVALID_SIGNATURE', async () => {
    // A key stored before registration checked keys: swap a registered key's public half for the identity.
    const key = newKey('k1');
    const agentId = uniqueAgentId('stored-weak');
    await registerAgent(api, agentId, [key]);
    await dynamo().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: ledgerKeys.key(orgId, agentId, key.kid),
        UpdateExpression: 'SET public_key = :weak',
        ExpressionAttributeValues: { ':weak': IDENTITY },
      }),
    );
    const forged = { ...new ClientChain(orgId, agentId, key).record(), signature: FORGED_SIGNATURE };
    const res = await api('POST', '/v1/operations', forged);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_SIGNATURE');
    expect((await api('GET', `/v1/operations/${forged.operation_id}`)).status).toBe(404);
  });

});
