/**
 * Listing, naming, capping and revoking API tokens over HTTP (docs/API.md §4.1, §2.7, §7),
 * by each role and across organizations. Against the deploy rehearsal (test:acceptance
 * --against-rehearsal) every route is its own process, so "refused at once" there is
 * refused by a process other than the one that revoked;
 * test/integration/token-revocation-cache.test.ts shows the same against a warm caller cache in
 * one process.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../lambdas/shared/roles.js';
import { seedOrg, seedUser, type SeededUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
const call = stack.call;

interface Member extends SeededUser {
  /** The member's session (what issues tokens). */
  session: string;
}

async function member(orgId: string, role: Role): Promise<Member> {
  const user = await seedUser(orgId, role, 'session');
  return { ...user, session: user.token };
}

async function issue(session: string, body?: Record<string, unknown>) {
  const res = await call('POST', '/v1/auth/token', { token: session, ...(body === undefined ? {} : { body }) });
  expect(res.status, res.text).toBe(200);
  return res.json as { token: string; token_id: string; expires_at: number | null };
}

const listed = async (token: string, query = '') => {
  const res = await call('GET', `/v1/auth/tokens${query}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.json as { tokens: Array<Record<string, unknown>>; next_cursor: string | null };
};
const ids = (list: { tokens: Array<Record<string, unknown>> }) => list.tokens.map((token) => token.token_id);

let orgId: string;
let owner: Member;
let admin: Member;
let engineer: Member;
let auditor: Member;
let otherOrgOwner: Member;

beforeAll(async () => {
  orgId = await seedOrg('Token Org');
  [owner, admin, engineer, auditor] = await Promise.all([
    member(orgId, 'org_owner'),
    member(orgId, 'security_admin'),
    member(orgId, 'integration_engineer'),
    member(orgId, 'compliance_auditor'),
  ]);
  otherOrgOwner = await member(await seedOrg('Other Org'), 'org_owner');
});

describe('issuing (docs/API.md §4.1)', () => {
  it('takes the /v1 bodies unchanged and an optional name, and lists the token without its secret', async () => {
    const original = await issue(engineer.session, { ttl_seconds: 3600 });
    const bare = await issue(engineer.session);
    const named = await issue(engineer.session, { name: '  laptop of Ada  ', ttl_seconds: 600 });
    for (const res of [original, bare, named]) expect(Object.keys(res).sort()).toEqual(['expires_at', 'token', 'token_id']);
    expect(bare.expires_at).toBeNull();

    const list = await listed(engineer.session);
    expect(ids(list).slice(0, 3)).toEqual([named.token_id, bare.token_id, original.token_id]);
    const shown = list.tokens[0]!;
    expect(shown).toEqual({
      token_id: named.token_id,
      name: 'laptop of Ada',
      user_id: engineer.userId,
      status: 'active',
      created_at: expect.any(Number),
      expires_at: named.expires_at,
      last_used_at: null,
      ended_at: null,
      replaced_by: null,
    });
    expect(JSON.stringify(list)).not.toContain(named.token);
    expect(list.tokens[1]).toMatchObject({ name: null, expires_at: null });

    for (const name of ['', '   ', 'x'.repeat(129), 42]) {
      const res = await call('POST', '/v1/auth/token', { token: engineer.session, body: { name } });
      expect(res.status, String(name)).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('records when a token was last used, and the profile names the token and its expiry', async () => {
    const issued = await issue(auditor.session, { name: 'ci', ttl_seconds: 7200 });
    const me = await call('GET', '/v1/auth/me', { token: issued.token });
    expect(me.status).toBe(200);
    expect(me.json.credential).toEqual({ kind: 'api', token_id: issued.token_id, name: 'ci', expires_at: issued.expires_at });
    expect(me.json.current_organization).toMatchObject({ org_id: orgId, org_name: 'Token Org', role: 'compliance_auditor' });
    const shown = (await listed(auditor.session)).tokens.find((token) => token.token_id === issued.token_id)!;
    expect(shown.last_used_at).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 60);
  });

  it('writes admin events token.create, token.rotate and token.revoke', async () => {
    const issued = await issue(owner.session, { name: 'audited' });
    const rotated = (await call('POST', '/v1/auth/rotate', { token: issued.token })).json;
    expect((await call('DELETE', `/v1/auth/tokens/${rotated.token_id}`, { token: owner.session })).status).toBe(200);
    const events = (await call('GET', '/v1/admin/events?limit=100', { token: owner.session })).json.events as Array<Record<string, unknown>>;
    const about = (id: string) => events.filter((event) => event.target_id === id).map((event) => event.action);
    expect(about(issued.token_id)).toEqual(['token.create']);
    expect(about(rotated.token_id).sort()).toEqual(['token.revoke', 'token.rotate']);
  });
});

describe('who sees which tokens', () => {
  it('shows a member their own tokens, and org_owner and security_admin the organization’s', async () => {
    const mine = await issue(engineer.session, { name: 'engineer only' });
    const theirs = await issue(auditor.session, { name: 'auditor only' });
    expect(ids(await listed(engineer.session))).toContain(mine.token_id);
    expect(ids(await listed(engineer.session))).not.toContain(theirs.token_id);
    expect(ids(await listed(auditor.session))).not.toContain(mine.token_id);
    for (const lead of [owner, admin]) {
      const all = ids(await listed(lead.session));
      expect(all).toEqual(expect.arrayContaining([mine.token_id, theirs.token_id]));
      const one = await listed(lead.session, `?user_id=${engineer.userId}`);
      expect(one.tokens.every((token) => token.user_id === engineer.userId)).toBe(true);
    }
    // An API token lists too: the CLI asks with what it holds.
    expect(ids(await listed(mine.token))).toContain(mine.token_id);
    const narrowed = await call('GET', `/v1/auth/tokens?user_id=${auditor.userId}`, { token: engineer.session });
    expect(narrowed.status).toBe(403);
  });

  it('never lists or revokes another organization’s tokens (NOT_FOUND, as for an id that does not exist)', async () => {
    const foreign = await issue(otherOrgOwner.session, { name: 'foreign' });
    expect(ids(await listed(owner.session))).not.toContain(foreign.token_id);
    const revoke = await call('DELETE', `/v1/auth/tokens/${foreign.token_id}`, { token: owner.session });
    expect(revoke.status).toBe(404);
    expect(revoke.json.error.code).toBe('NOT_FOUND');
    expect((await call('DELETE', `/v1/auth/tokens/${crypto.randomUUID()}`, { token: owner.session })).status).toBe(404);
    expect((await call('DELETE', '/v1/auth/tokens/not-a-token-id', { token: owner.session })).status).toBe(400);
    expect((await call('GET', '/v1/members', { token: foreign.token })).status).toBe(200);
  });

  it('lets a member revoke their own token but not a colleague’s; the admins revoke any', async () => {
    const auditorToken = await issue(auditor.session);
    const denied = await call('DELETE', `/v1/auth/tokens/${auditorToken.token_id}`, { token: engineer.session });
    expect(denied.status).toBe(404);
    expect((await call('GET', '/v1/members', { token: auditorToken.token })).status).toBe(200);

    const own = await issue(engineer.session);
    expect((await call('DELETE', `/v1/auth/tokens/${own.token_id}`, { token: engineer.session })).json.token.status).toBe('revoked');
    const byAdmin = await call('DELETE', `/v1/auth/tokens/${auditorToken.token_id}`, { token: admin.session });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.json.token).toMatchObject({ token_id: auditorToken.token_id, status: 'revoked', ended_at: expect.any(Number) });
  });

  it('pages newest first with next_cursor, and refuses a cursor it did not make', async () => {
    const lead = await member(orgId, 'security_admin');
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1) made.push((await issue(lead.session, { name: `page ${i}` })).token_id);
    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page = await listed(lead.session, `?user_id=${lead.userId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.tokens.length).toBeLessThanOrEqual(2);
      seen.push(...ids(page));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(made.reverse());
    const bad = await call('GET', '/v1/auth/tokens?cursor=bm90LWEtY3Vyc29y', { token: lead.session });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('revocation', () => {
  it('refuses a revoked token at once on every kind of route, saying it was revoked', async () => {
    const issued = await issue(engineer.session, { name: 'lost laptop' });
    // Warm: the token works, and every route has read it once.
    for (const [method, path] of [['GET', '/v1/agents'], ['GET', '/v1/auth/me'], ['GET', '/v1/members']] as const) {
      expect((await call(method, path, { token: issued.token })).status).toBe(200);
    }
    const revoked = await call('DELETE', `/v1/auth/tokens/${issued.token_id}`, { token: owner.session });
    expect(revoked.status).toBe(200);
    for (const [method, path] of [['GET', '/v1/agents'], ['GET', '/v1/auth/me'], ['GET', '/v1/members'], ['POST', '/v1/auth/rotate']] as const) {
      const res = await call(method, path, { token: issued.token });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.json.error).toMatchObject({ code: 'UNAUTHORIZED', reason: 'revoked' });
      expect(res.json.error.message).toMatch(/revoked/);
    }
    const again = await call('DELETE', `/v1/auth/tokens/${issued.token_id}`, { token: owner.session });
    expect(again.status).toBe(200);
    expect(again.json.token.status).toBe('revoked');
    const shown = (await listed(engineer.session)).tokens.find((token) => token.token_id === issued.token_id);
    expect(shown).toMatchObject({ status: 'revoked' });
  });

  it('ends the grace of the token a rotation replaced when the replacement is revoked', async () => {
    const first = await issue(engineer.session, { name: 'rotating' });
    const rotate = await call('POST', '/v1/auth/rotate', { token: first.token });
    expect(rotate.status).toBe(200);
    expect((await call('GET', '/v1/members', { token: first.token })).status).toBe(200);
    const list = await listed(engineer.session);
    expect(list.tokens.find((token) => token.token_id === first.token_id)).toMatchObject({ status: 'rotating', replaced_by: rotate.json.token_id, name: 'rotating' });
    expect(list.tokens.find((token) => token.token_id === rotate.json.token_id)).toMatchObject({ status: 'active', name: 'rotating' });

    expect((await call('DELETE', `/v1/auth/tokens/${rotate.json.token_id}`, { token: engineer.session })).status).toBe(200);
    for (const token of [first.token, rotate.json.token as string]) {
      const res = await call('GET', '/v1/members', { token });
      expect(res.status).toBe(401);
      expect(res.json.error.reason).toBe('revoked');
    }
  });

  it('names an expired token as expired', async () => {
    const issued = await issue(engineer.session, { ttl_seconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, issued.expires_at! * 1000 - Date.now() + 50));
    const res = await call('GET', '/v1/members', { token: issued.token });
    expect(res.status).toBe(401);
    expect(res.json.error).toMatchObject({ code: 'UNAUTHORIZED', reason: 'expired' });
    expect((await listed(engineer.session)).tokens.find((token) => token.token_id === issued.token_id)).toMatchObject({ status: 'expired' });
    // An unknown token says nothing about why.
    const unknown = await call('GET', '/v1/members', { token: `alt_${'A'.repeat(43)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.json.error.reason).toBeUndefined();
  });
});

describe('the organization’s lifetime cap (max_token_ttl_seconds, docs/API.md §2.7)', () => {
  it('is set by org_owner and security_admin only, and bounds every new token', async () => {
    const capped = await seedOrg('Capped Org');
    const [capOwner, capAdmin, capEngineer] = await Promise.all([member(capped, 'org_owner'), member(capped, 'security_admin'), member(capped, 'integration_engineer')]);
    const refused = await call('PATCH', '/v1/organization', { token: capEngineer.session, body: { max_token_ttl_seconds: 3600 } });
    expect(refused.status).toBe(403);
    for (const bad of [0, 31_536_001, 1.5, '3600']) {
      expect((await call('PATCH', '/v1/organization', { token: capOwner.session, body: { max_token_ttl_seconds: bad } })).status, String(bad)).toBe(400);
    }
    const set = await call('PATCH', '/v1/organization', { token: capAdmin.session, body: { max_token_ttl_seconds: 3600 } });
    expect(set.status).toBe(200);
    expect(set.json.organization.max_token_ttl_seconds).toBe(3600);

    for (const body of [{ ttl_seconds: 3601 }, { ttl_seconds: null }]) {
      const res = await call('POST', '/v1/auth/token', { token: capEngineer.session, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
      expect(res.json.error.message).toMatch(/ttl_seconds.*3600/);
    }
    const omitted = await issue(capEngineer.session);
    expect(omitted.expires_at! - Math.floor(Date.now() / 1000)).toBeGreaterThan(3500);
    expect(omitted.expires_at! - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(3600);
    expect((await issue(capEngineer.session, { ttl_seconds: 60 })).expires_at).not.toBeNull();

    const events = (await call('GET', '/v1/admin/events?limit=20', { token: capOwner.session })).json.events as Array<Record<string, unknown>>;
    expect(events.some((event) => event.action === 'org.update' && String(event.details).includes('max_token_ttl_seconds'))).toBe(true);

    const lifted = await call('PATCH', '/v1/organization', { token: capOwner.session, body: { max_token_ttl_seconds: null } });
    expect(lifted.json.organization.max_token_ttl_seconds).toBeNull();
    expect((await issue(capEngineer.session)).expires_at).toBeNull();
    // Other organizations never had a cap.
    expect((await call('GET', '/v1/organization', { token: owner.session })).json.organization.max_token_ttl_seconds).toBeNull();
  });
});
