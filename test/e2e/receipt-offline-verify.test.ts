// A receipt verifies with nothing but the JWKS document fetched over HTTP and the
// docs/PROTOCOL.md rules as `@agent-ledger/protocol` implements them.
//
// The verifier below (`offlineVerify`) imports only `@agent-ledger/protocol`. The test
// support modules are used for setup alone: to boot the local stack and to seed a token
// (the sign-up flow belongs to the identity tests); the agent, its key, the record and its
// signature are made here from `@agent-ledger/protocol` and plain HTTP.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  b64uDecode,
  chainHash,
  generateKeyPair,
  GENESIS,
  jwkThumbprint,
  OP_VERSION,
  payloadHash,
  provePossession,
  publicKeyFromJwk,
  receiptHash,
  signRecord,
  verify,
  verifyReceipt,
  type Jwk,
  type OperationRecord,
  type Receipt,
} from '@agent-ledger/protocol';
import { useLedgerStack } from '../support/ledger-stack.js';

/**
 * docs/PROTOCOL.md "Receipt", step by step: receipt_hash recomputes over the receipt without
 * {receipt_hash, service_kid, service_signature}; the JWKS names a key whose RFC 7638
 * thumbprint is service_kid; service_signature is Ed25519 over the 32 hash bytes.
 */
function offlineVerify(receipt: Receipt, jwks: { keys: Jwk[] }): boolean {
  if (receiptHash(receipt) !== receipt.receipt_hash) return false;
  const jwk = jwks.keys.find((key) => key.kid === receipt.service_kid);
  if (!jwk || typeof jwk.x !== 'string') return false;
  if (jwkThumbprint({ crv: String(jwk.crv), kty: String(jwk.kty), x: jwk.x }) !== receipt.service_kid) return false;
  return verify(publicKeyFromJwk(jwk), b64uDecode(receipt.receipt_hash), receipt.service_signature);
}

/** RFC 9562 §5.7 UUIDv7 for the client-generated operation_id. */
function uuidv7(): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(Date.now(), 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const stack = useLedgerStack();
let orgId: string;
let token: string;

beforeAll(async () => {
  const seeded = await stack.org('integration_engineer');
  orgId = seeded.orgId;
  token = seeded.users.integration_engineer.token;
});

async function post(path: string, body: unknown) {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { receipt?: Receipt } };
}

describe('offline receipt verification', () => {
  let record: OperationRecord;
  let receipt: Receipt;
  let jwks: { keys: Jwk[] };

  beforeAll(async () => {
    const agentKey = generateKeyPair();
    const agentId = `offline-${randomBytes(4).toString('hex')}`;
    const registered = await post('/v1/agents/register', {
      agent_id: agentId,
      integration_type: 'sdk',
      keys: [{ kid: 'k1', public_key: agentKey.publicKey, algorithm: 'ed25519', proof: provePossession(agentKey.privateKey, { org_id: orgId, agent_id: agentId, kid: 'k1', registered_at: Date.now() }) }],
    });
    expect(registered.status).toBe(200);
    const payload = { command: 'deploy', target: 'prod' };
    record = signRecord(
      {
        op_version: OP_VERSION,
        operation_id: uuidv7(),
        org_id: orgId,
        agent_id: agentId,
        issued_at: Date.now(),
        ttl_ms: 30_000,
        nonce: randomBytes(16).toString('base64url'),
        operation_type: 'deploy.start',
        subject: { service: 'api' },
        action: { verb: 'deploy' },
        payload,
        payload_hash: payloadHash(payload),
        prev_chain_hash: GENESIS,
        agent_pubkey_kid: 'k1',
      },
      agentKey.privateKey,
    );
    const submitted = await post('/v1/operations', record);
    expect(submitted.status).toBe(200);
    receipt = submitted.body.receipt!;
    jwks = (await (await fetch(`${stack.baseUrl}/.well-known/service/jwks.json`)).json()) as { keys: Jwk[] };
  });

  it('verifies with the published JWKS alone, and the protocol package agrees', () => {
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(offlineVerify(receipt, jwks)).toBe(true);
    expect(verifyReceipt(receipt, jwks)).toBe(true);
  });

  it('binds the receipt to the submitted record: its operation, seq_no 1 and the chain hash the client computes', () => {
    expect(receipt).toMatchObject({ receipt_version: '1.0', operation_id: record.operation_id, org_id: orgId, agent_id: record.agent_id, seq_no: 1 });
    expect(receipt.chain_hash).toBe(chainHash(GENESIS, record));
    // The hashed part is exactly the nine members docs/PROTOCOL.md lists.
    const { receipt_hash: _h, service_kid: _k, service_signature: _s, ...hashed } = receipt;
    expect(Object.keys(hashed)).toHaveLength(9);
  });

  it('refuses a receipt with any member changed, and a JWKS without the signing key', () => {
    for (const [field, value] of [
      ['seq_no', 2],
      ['chain_hash', GENESIS],
      ['queue_message_id', 'another-message'],
      ['server_received_at', receipt.server_received_at + 1],
      ['service_signature', receipt.service_signature.replace(/^./, receipt.service_signature[0] === 'A' ? 'B' : 'A')],
    ] as const) {
      expect(offlineVerify({ ...receipt, [field]: value } as Receipt, jwks), field).toBe(false);
    }
    const stranger = generateKeyPair();
    const strangerJwk = { kty: 'OKP', crv: 'Ed25519', x: stranger.publicKey, alg: 'EdDSA', use: 'sig' };
    expect(offlineVerify(receipt, { keys: [{ ...strangerJwk, kid: jwkThumbprint({ crv: 'Ed25519', kty: 'OKP', x: stranger.publicKey }) }] })).toBe(false);
    // A JWKS entry that claims the right kid for the wrong key is caught by the thumbprint.
    expect(offlineVerify(receipt, { keys: [{ ...strangerJwk, kid: receipt.service_kid }] })).toBe(false);
  });
});
