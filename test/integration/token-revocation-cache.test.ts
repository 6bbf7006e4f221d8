// A revocation made by another process (here: straight in the table, as that process's
// transaction leaves it) refuses the token on this process's very next request, although
// this process cached the token's caller moments before with a long cache lifetime
// (domain/auth/caller-lookup.ts reads the token item on every request; docs/API.md §4.1).
import { describe, expect, it } from 'vitest';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../lambdas/store/clients.js';
import { tokenRevoke } from '../../lambdas/store/tokens.js';
import { tokenHash } from '../../lambdas/shared/token-format.js';
import { seedOrg, seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack({ env: { LEDGER_CALLER_CACHE_MS: '600000' } });

describe('revocation by another process', () => {
  it('refuses a token whose caller this process has cached, on the next request', async () => {
    const orgId = await seedOrg();
    const owner = await seedUser(orgId, 'org_owner', 'session');
    const issued = (await stack.call('POST', '/v1/auth/token', { token: owner.token, body: { name: 'cached' } })).json;
    for (let i = 0; i < 3; i += 1) expect((await stack.call('GET', '/v1/agents', { token: issued.token })).status).toBe(200);

    await dynamo().send(new TransactWriteCommand({ TransactItems: [tokenRevoke(tokenHash(issued.token), Date.now(), owner.userId)] }));

    const res = await stack.call('GET', '/v1/agents', { token: issued.token });
    expect(res.status).toBe(401);
    expect(res.json.error.reason).toBe('revoked');
  });

  it('does not let a forged token record revive a revoked token: the token item decides', async () => {
    const orgId = await seedOrg();
    const owner = await seedUser(orgId, 'org_owner', 'session');
    const issued = (await stack.call('POST', '/v1/auth/token', { token: owner.token })).json;
    expect((await stack.call('DELETE', `/v1/auth/tokens/${issued.token_id}`, { token: owner.token })).status).toBe(200);
    // An insider with table write access clears the record's revocation: the list is wrong, the token stays dead.
    await dynamo().send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: { pk: `ORG#${orgId}`, sk: `TOKEN#${issued.token_id}` },
        UpdateExpression: 'REMOVE revoked_by, revoked_at, grace_until',
      }),
    );
    expect((await stack.call('GET', '/v1/agents', { token: issued.token })).status).toBe(401);
  });
});
