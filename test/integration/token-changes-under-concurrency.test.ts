// Token changes against DynamoDB Local (domain/identity/tokens.ts): each ends its token once,
// so concurrent refreshes or rotations of one token cannot both hand out a successor.
import { describe, expect, it } from 'vitest';
import { loadCaller } from '../../lambdas/domain/auth/caller-lookup.js';
import { getToken } from '../../lambdas/store/tokens.js';
import { tokenHash } from '../../lambdas/shared/token-format.js';
import type { Caller } from '../../lambdas/domain/auth/caller.js';
import { refreshSession, rotateApiToken } from '../../lambdas/domain/identity/tokens.js';
import { seedOrg, seedToken, seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

useLedgerStack({ env: { LEDGER_TOKEN_GRACE_SECONDS: '60' } });

async function callerOf(token: string): Promise<Caller> {
  const caller = await loadCaller(tokenHash(token), Date.now());
  if (!caller) throw new Error('token does not work');
  return caller;
}

describe('concurrent token changes', () => {
  it('of two concurrent rotations of one API token, exactly one succeeds', async () => {
    const user = await seedUser(await seedOrg(), 'security_admin');
    const caller = await callerOf(user.token);
    const results = await Promise.allSettled([rotateApiToken(caller, tokenHash(user.token)), rotateApiToken(caller, tokenHash(user.token))]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: 'VALIDATION_ERROR', status: 409 });
    const old = await getToken(tokenHash(user.token));
    expect(old?.replaced_by).toBe((results.find((result) => result.status === 'fulfilled') as PromiseFulfilledResult<{ token_id: string }>).value.token_id);
  });

  it('of two concurrent refreshes of one session, exactly one succeeds', async () => {
    const user = await seedUser(await seedOrg(), 'org_owner');
    const session = await seedToken(user.userId, 'session');
    const caller = await callerOf(session);
    const results = await Promise.allSettled([refreshSession(caller, tokenHash(session)), refreshSession(caller, tokenHash(session))]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(await loadCaller(tokenHash(session), Date.now())).toBeNull();
  });
});

describe('rotation', () => {
  it('keeps the new token in the organization and of the same lifetime; the grace never outlives the old token', async () => {
    const orgId = await seedOrg();
    const user = await seedUser(orgId, 'integration_engineer');
    const now = Date.now();
    const shortLived = await seedToken(user.userId, 'api', { expires_at: now + 10_000, org_id: orgId, ttl_seconds: 10 });
    const rotated = await rotateApiToken(await callerOf(shortLived), tokenHash(shortLived), now);
    // Grace is 60 s, but the old token expires in 10 s: that is when it stops.
    expect(rotated.previous_token_grace_until).toBe(Math.floor((now + 10_000) / 1000));
    expect(rotated.expires_at).toBe(Math.floor(now / 1000) + 10);
    const successor = await getToken(tokenHash(rotated.token));
    expect(successor).toMatchObject({ kind: 'api', org_id: orgId, ttl_seconds: 10, user_id: user.userId });
  });
});
