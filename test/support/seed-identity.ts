/**
 * Test fixtures for identity data: writes organizations, users, members and tokens straight
 * into the table in the layout of lambdas/store/identity-items.ts, so tests of other
 * areas get callers of any role without walking the sign-up flow (which has its own e2e
 * test). Uses the process's configured table (the test stack sets it); in URL mode
 * (ledger-url.ts) there is no table to write, and url-identity.ts makes the same over the API.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../lambdas/config.js';
import { identityKeys, type MemberItem, type OrgItem, type TokenItem, type UserItem } from '../../lambdas/store/identity-items.js';
import { newToken, tokenHash } from '../../lambdas/shared/token-format.js';
import type { TokenKind } from '../../lambdas/domain/auth/caller.js';
import type { Role } from '../../lambdas/shared/roles.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { testBaseUrl } from './ledger-url.js';
import { seedAssignmentOverHttp, seedOrgOverHttp, seedTokenOverHttp, seedUserOverHttp } from './url-identity.js';

async function put(item: Record<string, unknown>): Promise<void> {
  await dynamo().send(new PutCommand({ TableName: config().tableName, Item: item }));
}

export interface SeededUser {
  userId: string;
  orgId: string | null;
  role: Role;
  email: string;
  /** An API token of this user (or a session token when asked for). */
  token: string;
}

export async function seedOrg(name = 'Test Org'): Promise<string> {
  const url = testBaseUrl();
  if (url) return seedOrgOverHttp(url, name);
  const orgId = randomUUID();
  const now = Date.now();
  const org: OrgItem = { org_id: orgId, org_name: name, description: null, created_at: now, updated_at: now, created_by: 'seed', assignment_count: 0, owner_count: 0 };
  await put({ ...identityKeys.org(orgId), type: 'org', ...org });
  return orgId;
}

export async function seedToken(userId: string, kind: TokenKind = 'api', overrides: Partial<TokenItem> = {}): Promise<string> {
  const url = testBaseUrl();
  if (url) return seedTokenOverHttp(url, userId, kind, overrides);
  const token = newToken(kind);
  const item: TokenItem = { token_id: randomUUID(), kind, user_id: userId, created_at: Date.now(), expires_at: null, ...overrides };
  await put({ ...identityKeys.token(tokenHash(token)), type: 'token', ...item });
  return token;
}

/** A user in `orgId` (or without an organization when null) with a fresh token. */
export async function seedUser(orgId: string | null, role: Role, kind: TokenKind = 'api'): Promise<SeededUser> {
  const url = testBaseUrl();
  if (url) return seedUserOverHttp(url, orgId, role, kind);
  const userId = randomUUID();
  const email = `${role}.${userId.slice(0, 8)}@example.test`;
  const now = Date.now();
  const user: UserItem = {
    user_id: userId,
    email,
    name: `${role} user`,
    email_verified: true,
    image: null,
    org_id: orgId,
    role,
    status: 'active',
    onboarding_completed: orgId ? 1 : 0,
    created_at: now,
    updated_at: now,
  };
  await put({ ...identityKeys.user(userId), type: 'user', ...user });
  await put({ ...identityKeys.email(email), type: 'email', user_id: userId });
  if (orgId) {
    const member: MemberItem = { member_id: randomUUID(), user_id: userId, role, joined_at: new Date(now).toISOString(), email, display_name: user.name };
    await put({ ...identityKeys.member(orgId, userId), type: 'member', org_id: orgId, ...member });
    // The org keeps its owner count (identity-items.ts OrgItem.owner_count), which the
    // last-owner rule of PATCH/DELETE /v1/members/:user_id checks.
    // Only when the org item exists (seedOrg), so a bare org id does not grow a stub item.
    if (role === 'org_owner') {
      await dynamo()
        .send(
          new UpdateCommand({
            TableName: config().tableName,
            Key: identityKeys.org(orgId),
            UpdateExpression: 'ADD owner_count :one',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':one': 1 },
          }),
        )
        .catch((error: Error) => {
          if (error.name !== 'ConditionalCheckFailedException') throw error;
        });
    }
  }
  return { userId, orgId, role, email, token: await seedToken(userId, kind) };
}

/** Assigns an agent to a user the way the assignments endpoint does, keeping the org's count (docs/API.md §4.4). */
export async function seedAssignment(orgId: string, agentId: string, userId: string): Promise<void> {
  const url = testBaseUrl();
  if (url) return seedAssignmentOverHttp(url, orgId, agentId, userId);
  await put({
    ...identityKeys.assignment(orgId, agentId, userId),
    type: 'assignment',
    id: randomUUID(),
    org_id: orgId,
    agent_id: agentId,
    user_id: userId,
    assigned_by: 'seed',
    created_at: Date.now(),
    gsi1pk: identityKeys.userAssignments(orgId, userId),
    gsi1sk: agentId,
  });
  await dynamo().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: identityKeys.org(orgId),
      UpdateExpression: 'ADD assignment_count :one',
      ExpressionAttributeValues: { ':one': 1 },
    }),
  );
}
