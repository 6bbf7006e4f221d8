/**
 * seed-identity.ts in URL mode (ledger-url.ts): the same organizations, members and tokens,
 * made the way a person makes them, over the API (docs/API.md §4.1, §4.2, §4.4): each user
 * signs up, follows the mailed verification link and signs in; an organization is created
 * by its first owner through onboarding; every other member is invited by that owner and
 * accepts; API tokens come from POST /v1/auth/token.
 *
 * The first `org_owner` asked for in an organization is the one who created it; a seeded
 * organization whose tests ask for no owner still has that creator as a member.
 */
import type { TokenKind } from '../../lambdas/domain/auth/caller.js';
import type { Role } from '../../lambdas/shared/roles.js';
import type { TokenItem } from '../../lambdas/store/identity-items.js';
import { client } from './http-client.js';
import { signedInUser, TEST_PASSWORD, type SignedIn } from './identity-flows.js';
import { newClientAddress } from './ledger-url.js';
import type { SeededUser } from './seed-identity.js';

/** Every user this process made, by user id. */
const users = new Map<string, SignedIn>();
/** Who created each organization this process made, and whether a test has been handed them as its owner. */
const creators = new Map<string, { user: SignedIn; handedOut: boolean }>();

async function ok(baseUrl: string, what: string, method: string, path: string, token: string, body?: unknown) {
  const res = await client(baseUrl)(method, path, { token, ...(body === undefined ? {} : { body }) });
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.json;
}

async function newUser(baseUrl: string, name: string): Promise<SignedIn> {
  const from = newClientAddress(baseUrl);
  const user = await signedInUser(baseUrl, name, from ? { from } : {});
  users.set(user.userId, user);
  return user;
}

export async function seedOrgOverHttp(baseUrl: string, name: string): Promise<string> {
  const creator = await newUser(baseUrl, 'Owner');
  const { org_id: orgId } = await ok(baseUrl, 'onboarding', 'POST', '/v1/onboarding/organization', creator.session, { org_name: name });
  creators.set(orgId, { user: creator, handedOut: false });
  return orgId;
}

async function apiToken(baseUrl: string, user: SignedIn, ttlSeconds: number | null): Promise<string> {
  return (await ok(baseUrl, 'API token', 'POST', '/v1/auth/token', user.session, { ttl_seconds: ttlSeconds })).token;
}

async function sessionToken(baseUrl: string, user: SignedIn): Promise<string> {
  const from = newClientAddress(baseUrl);
  const res = await client(baseUrl)('POST', '/api/auth/sign-in/email', { body: { email: user.email, password: TEST_PASSWORD }, ...(from ? { dispatcher: from } : {}) });
  if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${res.text}`);
  return res.json.token;
}

export async function seedUserOverHttp(baseUrl: string, orgId: string | null, role: Role, kind: TokenKind): Promise<SeededUser> {
  if (orgId === null) {
    // Without an organization there is no API token to issue (POST /v1/auth/token needs
    // one): such a user's only credential is their session.
    const user = await newUser(baseUrl, role);
    return { userId: user.userId, orgId, role, email: user.email, token: user.session };
  }
  const org = creators.get(orgId);
  if (!org) throw new Error(`organization ${orgId} was not seeded by this test file (seedOrg)`);
  let user: SignedIn;
  if (role === 'org_owner' && !org.handedOut) {
    org.handedOut = true;
    user = org.user;
  } else {
    user = await newUser(baseUrl, role);
    const { invitation } = await ok(baseUrl, 'invitation', 'POST', '/v1/members/invitations', org.user.session, { email: user.email, role });
    await ok(baseUrl, 'accepting the invitation', 'POST', `/v1/invitations/${invitation.invitation_id}/accept`, user.session);
  }
  const token = kind === 'session' ? user.session : await apiToken(baseUrl, user, null);
  return { userId: user.userId, orgId, role, email: user.email, token };
}

/**
 * A token of a user this process made. Of the stored fields only `expires_at` can be chosen
 * over the API (as `ttl_seconds`); a time already past is reached by issuing the shortest
 * token (1 s) and waiting it out.
 */
export async function seedTokenOverHttp(baseUrl: string, userId: string, kind: TokenKind, overrides: Partial<TokenItem>): Promise<string> {
  const user = users.get(userId);
  if (!user) throw new Error(`user ${userId} was not seeded by this test file`);
  const { expires_at: expiresAt, ...rest } = overrides;
  if (Object.keys(rest).length > 0) throw new Error(`over the API a token's ${Object.keys(rest).join(', ')} cannot be chosen`);
  if (kind === 'session') {
    if (expiresAt !== undefined) throw new Error("over the API a session's expiry cannot be chosen");
    return sessionToken(baseUrl, user);
  }
  if (expiresAt === undefined || expiresAt === null) return apiToken(baseUrl, user, null);
  const ttlSeconds = Math.ceil((expiresAt - Date.now()) / 1000);
  if (ttlSeconds >= 1) return apiToken(baseUrl, user, ttlSeconds);
  const token = await apiToken(baseUrl, user, 1);
  // The service compares expiry in whole seconds: past it once the next second has begun.
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  return token;
}

export async function seedAssignmentOverHttp(baseUrl: string, orgId: string, agentId: string, userId: string): Promise<void> {
  const org = creators.get(orgId);
  if (!org) throw new Error(`organization ${orgId} was not seeded by this test file (seedOrg)`);
  await ok(baseUrl, 'assignment', 'POST', `/v1/agents/${encodeURIComponent(agentId)}/assignments`, org.user.session, { user_id: userId });
}
