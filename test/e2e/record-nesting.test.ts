/**
 * The nesting limit (docs/PROTOCOL.md, Nesting limit) and other bodies that poisoned or broke
 * the service, attacked over HTTP against the local stack:
 * - a record whose subject, action or payload nests 2,900 levels deep was accepted, and every
 *   export holding it then failed offline verification for good (records are never
 *   deleted); now any member deeper than 64 levels (the record is level 1) is VALIDATION_ERROR;
 * - a body nested 5,150 levels deep overflowed the repeated-member scan: 500 on any route,
 *   the unauthenticated ones included; now 400 VALIDATION_ERROR;
 * - a top-level `"__proto__"` member of the payload was silently dropped by the request
 *   schema (the client that signed it got INVALID_SIGNATURE); now it is refused by name.
 * The records are signed with the protocol directly: the SDK itself refuses to sign them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GENESIS, OP_VERSION, payloadHash, signRecord, uuidv7, type OperationRecord } from '@agent-ledger/protocol';
import { newKey, registerAgent, uniqueAgentId, type TestKey } from '../support/ledger-fixtures.js';
import type { Api } from '../support/http-client.js';
import { seedOrg, seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '100000' } });
let orgId: string;
let api: Api;
let agentId: string;
let key: TestKey;

/** `levels` levels of objects counting the outer one, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** A record on the genesis head (each is refused or is the agent's first), signed over whatever it is given. */
function signed(parts: Partial<Pick<OperationRecord, 'subject' | 'action' | 'payload'>>): OperationRecord {
  const payload = parts.payload ?? null;
  return signRecord(
    {
      op_version: OP_VERSION,
      operation_id: uuidv7(),
      org_id: orgId,
      agent_id: agentId,
      issued_at: Date.now(),
      ttl_ms: 60_000,
      nonce: crypto.randomUUID(),
      operation_type: 'test.nesting',
      subject: parts.subject ?? { kind: 'repository' },
      action: parts.action ?? { verb: 'run' },
      payload,
      payload_hash: payloadHash(payload),
      prev_chain_hash: GENESIS,
      agent_pubkey_kid: key.kid,
    },
    key.privateKey,
  );
}

beforeAll(async () => {
  orgId = await seedOrg();
  api = stack.api((await seedUser(orgId, 'org_owner')).token);
  agentId = uniqueAgentId('nesting');
  key = newKey('k1');
  await registerAgent(api, agentId, [key]);
});

describe('a record nested deeper than 64 levels', () => {
  it.each(['subject', 'action', 'payload'] as const)('2,900 levels in %s: VALIDATION_ERROR naming the member, nothing recorded', async (member) => {
    const res = await api('POST', '/v1/operations', signed({ [member]: nested(2_900) }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toContain(`member '${member}' nests deeper than 64 levels`);
    expect(res.body.error.message).toContain(`body.${member}.a.a.a…`);
  });

  it('65 levels (the record counted as level 1) is refused, 64 are accepted', async () => {
    const over = await api('POST', '/v1/operations', signed({ payload: nested(64) }));
    expect(over.status).toBe(400);
    expect(over.body.error.message).toContain("member 'payload' nests deeper than 64 levels");
    const head = await api('GET', `/v1/agents/${agentId}`);
    expect(head.body.chain.seq_no).toBe(0);
    const within = await api('POST', '/v1/operations', signed({ payload: nested(63) }));
    expect(within.status, JSON.stringify(within.body)).toBe(200);
  });
});

describe('a body nested 5,150 levels deep', () => {
  const deepText = `{"email":${'['.repeat(5_150)}${']'.repeat(5_150)}}`;

  it.each([
    ['POST', '/api/auth/sign-in/email', undefined],
    ['POST', '/api/auth/sign-up/email', undefined],
    ['POST', '/v1/operations', 'token'],
  ] as const)('%s %s: 400 VALIDATION_ERROR, never 5xx', async (method, path, auth) => {
    const token = auth === undefined ? undefined : (await seedUser(orgId, 'org_owner')).token;
    const response = await fetch(stack.baseUrl + path, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: deepText,
    });
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(response.status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.message).toContain("request body member 'email' nests deeper than 64 levels");
  });
});

describe('a top-level "__proto__" member', () => {
  it('of subject, action or payload is refused by name, never silently dropped', async () => {
    for (const member of ['subject', 'action', 'payload'] as const) {
      // JSON.parse keeps "__proto__" as an own member, as a client's parser would; so does the signature.
      const value = JSON.parse('{"__proto__":{"admin":true},"kind":"x"}') as Record<string, unknown>;
      const res = await api('POST', '/v1/operations', signed({ [member]: value }));
      expect(res.status, member).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.message).toContain(`body.${member}: a top-level member named "__proto__" is not accepted`);
    }
  });

  it('nested deeper, is kept exactly as signed', async () => {
    const payload = JSON.parse('{"inner":{"__proto__":{"admin":true}}}') as Record<string, unknown>;
    const second = uniqueAgentId('proto');
    const secondKey = newKey('k1');
    await registerAgent(api, second, [secondKey]);
    const previous = { agentId, key };
    agentId = second;
    key = secondKey;
    try {
      const record = signed({ payload });
      const res = await api('POST', '/v1/operations', record);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const read = await api('GET', `/v1/operations/${record.operation_id}`);
      expect(read.status).toBe(200);
      expect(JSON.stringify(read.body.payload)).toBe('{"inner":{"__proto__":{"admin":true}}}');
    } finally {
      ({ agentId, key } = previous);
    }
  });
});
