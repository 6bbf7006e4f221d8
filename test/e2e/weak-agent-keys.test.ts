/**
 * Forging an agent's history with a weak key (docs/PROTOCOL.md, Notation), over HTTP: register
 * the identity point as the agent's key, then submit records "signed" with R = identity,
 * S = 0, which node's verify accepts for every message. Registration and key addition refuse
 * every small-order and non-canonical key with VALIDATION_ERROR; a weak key that is already
 * stored verifies nothing.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { b64uEncode } from '@agent-ledger/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { ledgerKeys } from '../../lambdas/store/ledger-items.js';
import { config } from '../../lambdas/config.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { ClientChain, keyBody, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { type Api } from '../support/http-client.js';
import { seedOrg, seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const IDENTITY = 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
/** R = identity, S = 0. */
const FORGED_SIGNATURE = b64uEncode(Uint8Array.from({ length: 64 }, (_, i) => (i === 0 ? 1 : 0)));

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

  it('an ordinary key still registers', async () => {
    const id = uniqueAgentId();
    const res = await api('POST', '/v1/agents/register', { agent_id: id, integration_type: 'sdk', keys: [keyBody(newKey(), orgId, id)] });
    expect(res.status).toBe(200);
  });
});
