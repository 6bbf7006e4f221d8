// The last-owner rule under concurrency, against DynamoDB Local (domain/orgs/members.ts):
// two owners demoting or removing each other at the same moment both pass their reads, and
// only the conditions in the transaction (owner_count, and the caller still being an owner,
// owner-rights.ts) keep one owner in place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOrg, listMembers } from '../../lambdas/adapters/aws/identity-org-store.js';
import type { OrgCaller } from '../../lambdas/domain/auth/caller.js';
import { changeRole, removeMember } from '../../lambdas/domain/orgs/members.js';
import { seedOrg, seedUser, type SeededUser } from '../support/seed-identity.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

const callerOf = (user: SeededUser): OrgCaller => ({
  userId: user.userId,
  email: user.email,
  displayName: 'Owner',
  emailVerified: true,
  orgId: user.orgId as string,
  role: user.role,
  tokenKind: 'api',
  tokenId: 't',
});

async function twoOwners() {
  const orgId = await seedOrg();
  const [a, b] = await Promise.all([seedUser(orgId, 'org_owner'), seedUser(orgId, 'org_owner')]);
  return { orgId, a: a!, b: b! };
}

async function owners(orgId: string) {
  const members = await listMembers(orgId);
  return { members: members.filter((member) => member.role === 'org_owner').length, counter: (await getOrg(orgId))!.owner_count };
}

describe('last org_owner under concurrency', () => {
  it.each([1, 2, 3, 4, 5])('round %i: mutual demotion and removal leave exactly one owner, counted right', async () => {
    const { orgId, a, b } = await twoOwners();
    expect(await owners(orgId)).toEqual({ members: 2, counter: 2 });
    const results = await Promise.allSettled([
      changeRole(callerOf(a), b.userId, 'security_admin'),
      removeMember(callerOf(b), a.userId),
    ]);
    const won = results.filter((result) => result.status === 'fulfilled').length;
    expect(won).toBeLessThanOrEqual(1);
    for (const result of results) {
      // 409: the last owner; 403: the other change landed first and the caller is no owner any more.
      if (result.status === 'rejected') expect([['VALIDATION_ERROR', 409], ['FORBIDDEN', 403]]).toContainEqual([result.reason.code, result.reason.status]);
    }
    const after = await owners(orgId);
    expect(after.members).toBeGreaterThanOrEqual(1);
    expect(after.counter).toBe(after.members);
    expect(after.members).toBe(2 - won);
  });
});
