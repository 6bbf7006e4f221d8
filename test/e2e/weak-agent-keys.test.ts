/**
 * Forging an agent's history with a weak key (docs/PROTOCOL.md, Notation), over HTTP: the
 * identity point as an agent's key would make records "signed" with R = identity, S = 0 valid
 * for every message. Registration and key addition refuse
 * every small-order and non-canonical key with VALIDATION_ERROR. (A weak key already stored
 * verifies nothing: weak-stored-key.test.ts, which writes it into the table.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { keyBody, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { type Api } from '../support/http-client.js';
import { seedOrg, seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { IDENTITY } from '../support/weak-keys.js';

const hexKey = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');
const WEAK_KEYS: [string, string][] = [
  ['the identity', IDENTITY],
  ['the order-2 point', hexKey('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f')],
  ['an order-4 point', hexKey('0000000000000000000000000000000000000000000000000000000000000000')],
  ['an order-8 point', hexKey('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a')],
  ['y = p + 1 (the identity, non-canonical)', hexKey('eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f')],
  ['the identity with the x sign bit', hexKey('0100000000000000000000000000000000000000000000000000000000000080')],
];

const stack = useLedgerStack();
let orgId: string;
/** A weak key's proof cannot be made by its owner; a well-formed one lets the key check answer first. */
const UNSIGNABLE_PROOF = { registered_at: Date.now(), signature: 'A'.repeat(86) };
let api: Api;
let admin: Api;

beforeAll(async () => {
  orgId = await seedOrg();
  api = stack.api((await seedUser(orgId, 'integration_engineer')).token);
  admin = stack.api((await seedUser(orgId, 'security_admin')).token);
});

describe('weak agent keys', () => {
  it.each(WEAK_KEYS)('registration refuses %s with VALIDATION_ERROR 400', async (_name, publicKey) => {
    const res = await api('POST', '/v1/agents/register', {
      agent_id: uniqueAgentId('weak'),
      integration_type: 'sdk',
      keys: [{ kid: 'k1', public_key: publicKey, algorithm: 'ed25519', proof: UNSIGNABLE_PROOF }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(/keys\[0\]\.public_key/);
  });

  it.each(WEAK_KEYS)('adding %s as a key is refused with VALIDATION_ERROR 400', async (_name, publicKey) => {
    const agentId = uniqueAgentId('add-weak');
    await registerAgent(api, agentId, [newKey('k1')]);
    const res = await admin('POST', `/v1/agents/${agentId}/keys`, { kid: 'k2', public_key: publicKey, algorithm: 'ed25519', proof: UNSIGNABLE_PROOF });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect((await api('GET', `/v1/agents/${agentId}`)).body.keys.map((key: { kid: string }) => key.kid)).toEqual(['k1']);
  });

  it('an ordinary key still registers', async () => {
    const id = uniqueAgentId();
    const res = await api('POST', '/v1/agents/register', { agent_id: id, integration_type: 'sdk', keys: [keyBody(newKey(), orgId, id)] });
    expect(res.status).toBe(200);
  });
});
