/**
 * Smaller hardening rules over HTTP against the local stack (SECURITY.md, Rules the service enforces; docs/PROTOCOL.md,
 * Operation record): each test sends what an attacker would and expects the refusal.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes, scryptSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { localIdpKeys } from '../../lambdas/store/local-identity.js';
import { config } from '../../lambdas/config.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { uniqueEmail, type Api } from '../support/http-client.js';
import { seedOrg, seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack({ env: { LEDGER_SCRYPT_N: '' } });
let orgId: string;
let token: string;
let api: Api;

beforeAll(async () => {
  // LEDGER_SCRYPT_N unset (''): password hashes at the default, OWASP's parameters.
  orgId = await seedOrg();
  token = (await seedUser(orgId, 'org_owner')).token;
  api = stack.api(token);
});

async function agentChain(): Promise<ClientChain> {
  const key = newKey('k1');
  const agentId = uniqueAgentId('hardening');
  await registerAgent(api, agentId, [key]);
  return new ClientChain(orgId, agentId, key);
}

describe('ttl_ms (docs/PROTOCOL.md: at most 24 hours)', () => {
  it('refuses a signed record valid for longer, and accepts exactly 24 hours', async () => {
    const chain = await agentChain();
    const tooLong = await api('POST', '/v1/operations', chain.record({ fields: { ttl_ms: 86_400_001 } }));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('VALIDATION_ERROR');
    expect(tooLong.body.error.message).toMatch(/ttl_ms/);
    expect((await chain.submit(api, { fields: { ttl_ms: 86_400_000 } })).res.status).toBe(200);
  });
});

/** POSTs a raw JSON text (JSON.stringify cannot write a repeated member name). */
async function postRaw(path: string, text: string) {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

describe('repeated member names (I-JSON, RFC 7493 §2.3)', () => {
  it('refuses a body in which two parsers could read two different records', async () => {
    const chain = await agentChain();
    const record = chain.record({ payload: { note: 'original' } });
    const text = JSON.stringify(record);
    const variants = {
      // A second agent_id at the top: JSON.parse keeps the last, other parsers the first.
      top: text.replace('"agent_id":', '"agent_id":"someone-else","agent_id":'),
      // Deep inside the payload.
      nested: text.replace('"note":"original"', '"note":"original","note":"forged"'),
      // The same name spelled with an escape.
      escaped: text.replace('"nonce":', '"n\\u006fnce":"x","nonce":'),
    };
    for (const [name, variant] of Object.entries(variants)) {
      expect(variant, name).not.toBe(text);
      const res = await postRaw('/v1/operations', variant);
      expect(res.status, name).toBe(400);
      expect(res.body.error?.code, name).toBe('VALIDATION_ERROR');
      expect(res.body.error?.message, name).toMatch(/repeats the member name/);
    }
    // Equal names in different objects are fine, and the untouched record is accepted.
    expect((await postRaw('/v1/operations', text)).status).toBe(200);
    const other = await postRaw('/v1/agents/register', JSON.stringify({ agent_id: uniqueAgentId(), integration_type: 'sdk', keys: [{ kid: 'k1', public_key: newKey().publicKey, algorithm: 'ed25519', proof: { registered_at: Date.now(), signature: 'A'.repeat(86) } }] }).replace('"kid":"k1"', '"kid":"k0","kid":"k1"'));
    expect(other.status).toBe(400);
  });
});


describe('the session cookie', () => {
  const withCookie = (path: string, value: string, method = 'GET') =>
    fetch(`${stack.baseUrl}${path}`, { method, headers: { cookie: `ledger_session=${value}` } });

  it('carries session tokens only: an API token in it is no credential', async () => {
    expect(token).toMatch(/^alt_/);
    expect((await fetch(`${stack.baseUrl}/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await withCookie('/v1/auth/me', token)).status).toBe(401);
    expect((await withCookie('/v1/auth/rotate', token, 'POST')).status).toBe(401);
    expect(await (await withCookie('/api/auth/get-session', token)).json()).toBeNull();

    const session = (await seedUser(orgId, 'readonly_investigator', 'session')).token;
    expect((await withCookie('/v1/auth/me', session)).status).toBe(200);
  });
});

describe('local password hashes (OWASP scrypt: N=2^17, r=8, p=1)', () => {
  const storedHash = async (email: string) =>
    ((await dynamo().send(new GetCommand({ TableName: config().tableName, Key: localIdpKeys.credential(email), ConsistentRead: true }))).Item as { password_hash: string })
      .password_hash;

  it('are made at those parameters, and an older, weaker hash is replaced at the next sign-in', async () => {
    const call = stack.call;
    const email = uniqueEmail('rehash');
    expect((await call('POST', '/api/auth/sign-up/email', { body: { name: 'R', email, password: 'password-1234' } })).status).toBe(200);
    expect(await storedHash(email)).toMatch(/^scrypt\$131072\$8\$1\$/);

    // As an earlier version stored it: N=2^14.
    const salt = randomBytes(16);
    const key = scryptSync('password-1234', salt, 32, { N: 16384, r: 8, p: 1 });
    const weak = ['scrypt', 16384, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
    await dynamo().send(
      new UpdateCommand({ TableName: config().tableName, Key: localIdpKeys.credential(email), UpdateExpression: 'SET password_hash = :h', ExpressionAttributeValues: { ':h': weak } }),
    );
    expect((await call('POST', '/api/auth/sign-in/email', { body: { email, password: 'password-1234' } })).status).toBe(200);
    const rehashed = await storedHash(email);
    expect(rehashed).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(rehashed).not.toBe(weak);
    expect((await call('POST', '/api/auth/sign-in/email', { body: { email, password: 'password-1234' } })).status).toBe(200);
  });
});
