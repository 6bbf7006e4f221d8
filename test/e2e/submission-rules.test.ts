// POST /v1/operations over HTTP: every submission rule of docs/API.md §4.5 with the status of
// §7, and docs/PROTOCOL.md "Submission check order" when two rules fail at once.
// (INTERNAL_ERROR is exercised in submission-faults.test.ts.)
import { beforeAll, describe, expect, it } from 'vitest';
import { GENESIS, payloadHash, verifyReceipt, type OperationRecord } from '@agent-ledger/protocol';
import { recordQueue } from '../support/ledger-inspect.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId, type TestKey } from '../support/ledger-fixtures.js';
import { type Api, type Loose } from '../support/http-client.js';
import { seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const MAX_PAYLOAD = 256 * 1024; // the default LEDGER_MAX_PAYLOAD_BYTES (docs/PROTOCOL.md step 4)

const stack = useLedgerStack();
let orgId: string;
let otherOrgId: string;
let admin: Api;
let engineer: Api;

beforeAll(async () => {
  const [seeded, other] = await Promise.all([stack.org('org_owner', 'integration_engineer'), stack.org()]);
  ({ orgId, api: { org_owner: admin, integration_engineer: engineer } } = seeded);
  otherOrgId = other.orgId;
});

/** A fresh agent with keys k1 (active), k2 (revoked) and k3 (retired), and its client chain on k1. */
async function agentWithKeys(): Promise<{ chain: ClientChain; keys: Record<'k1' | 'k2' | 'k3', TestKey>; agentId: string }> {
  const agentId = uniqueAgentId();
  const keys = { k1: newKey('k1'), k2: newKey('k2'), k3: newKey('k3') };
  await registerAgent(admin, agentId, Object.values(keys));
  await admin('POST', `/v1/agents/${agentId}/revoke`, { kid: 'k2', reason: 'test' });
  await admin('POST', `/v1/agents/${agentId}/keys/k3/retire`);
  return { chain: new ClientChain(orgId, agentId, keys.k1), keys, agentId };
}

async function submit(record: unknown, api: Api = engineer) {
  return api('POST', '/v1/operations', record);
}

function expectError(res: { status: number; body: Loose }, status: number, code: string) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.request_id).toEqual(expect.any(String));
}

/** An accepted first record, so the chain has a head and a used nonce. */
async function withOneAccepted() {
  const setup = await agentWithKeys();
  const first = await setup.chain.submit(engineer);
  expect(first.res.status).toBe(200);
  return { ...setup, first: first.record };
}

describe('accepted submission (rule 9)', () => {
  it('answers with a receipt that verifies, names the next seq_no and the chain hash the client computed', async () => {
    const { chain } = await agentWithKeys();
    const queueLog = recordQueue(stack.queue);
    try {
      for (const seqNo of [1, 2, 3]) {
        const record = chain.record();
        const res = await submit(record);
        expect(res.status).toBe(200);
        chain.accept(record);
        const { receipt } = res.body;
        expect(receipt).toMatchObject({
          receipt_version: '1.0',
          operation_id: record.operation_id,
          org_id: orgId,
          agent_id: chain.agentId,
          seq_no: seqNo,
          chain_hash: chain.head,
        });
        expect(receipt.receipt_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
        const jwks = (await fetch(`${stack.baseUrl}/.well-known/service/jwks.json`).then((r) => r.json())) as { keys: [] };
        expect(verifyReceipt(receipt, jwks)).toBe(true);
        // operation.accepted went out through the outbox, its event_id the receipt's queue_message_id.
        await stack.stream.drain();
        const sent = queueLog.events().filter((entry) => entry.body.event === 'operation.accepted' && entry.body.data.operation_id === record.operation_id);
        expect(sent.map((entry) => entry.body)).toEqual([
          {
            event: 'operation.accepted',
            event_id: receipt.queue_message_id,
            org_id: orgId,
            timestamp: receipt.server_received_at,
            data: { operation_id: record.operation_id, agent_id: chain.agentId },
          },
        ]);
        // Read after write: the row is there at once.
        const got = await engineer('GET', `/v1/operations/${record.operation_id}`);
        expect(got.status).toBe(200);
        expect(got.body.operation).toMatchObject({ seq_no: seqNo, chain_hash: chain.head, created_at: receipt.server_received_at });
      }
      expect((await admin('GET', `/v1/agents/${chain.agentId}`)).body.chain).toEqual({ seq_no: 3, chain_hash: chain.head });
    } finally {
      queueLog.restore();
    }
  });

  it('accepts a canonical payload of exactly the limit and string and null payloads', async () => {
    const { chain } = await agentWithKeys();
    // JCS of a string adds two quotes.
    expect((await chain.submit(engineer, { payload: 'x'.repeat(MAX_PAYLOAD - 2) })).res.status).toBe(200);
    expect((await chain.submit(engineer, { payload: null })).res.status).toBe(200);
    expect((await chain.submit(engineer, { payload: 'plain text ✓' })).res.status).toBe(200);
  });
});

describe('each rule alone', () => {
  it('UNAUTHORIZED 401 without a valid token', async () => {
    const { chain } = await agentWithKeys();
    expectError(await submit(chain.record(), stack.api()), 401, 'UNAUTHORIZED');
    expectError(await submit(chain.record(), stack.api(`alt_${'A'.repeat(43)}`)), 401, 'UNAUTHORIZED');
  });

  it('FORBIDDEN 403 for roles that may not submit, and for another organization’s org_id', async () => {
    const { chain } = await agentWithKeys();
    for (const role of ['compliance_auditor', 'readonly_investigator'] as const) {
      const user = await seedUser(orgId, role);
      expectError(await submit(chain.record(), stack.api(user.token)), 403, 'FORBIDDEN');
    }
    expectError(await submit(chain.record({ fields: { org_id: otherOrgId } })), 403, 'FORBIDDEN');
  });

  it('VALIDATION_ERROR 400 for a malformed body', async () => {
    const { chain } = await agentWithKeys();
    expectError(await submit({ ...chain.record(), extra: true }), 400, 'VALIDATION_ERROR');
    expectError(await submit({ ...chain.record(), op_version: '2.0' }), 400, 'VALIDATION_ERROR');
    expectError(await submit({ ...chain.record(), operation_id: crypto.randomUUID() }), 400, 'VALIDATION_ERROR');
  });

  it('UNKNOWN_AGENT 404 (rule 1)', async () => {
    const { chain } = await agentWithKeys();
    expectError(await submit(chain.record({ fields: { agent_id: uniqueAgentId('ghost') } })), 404, 'UNKNOWN_AGENT');
  });

  it('AGENT_FROZEN 403 and AGENT_REVOKED 403 (rule 2)', async () => {
    const { chain, agentId } = await agentWithKeys();
    await admin('POST', `/v1/agents/${agentId}/freeze`, { reason: 'r' });
    expectError(await submit(chain.record()), 403, 'AGENT_FROZEN');
    await admin('POST', `/v1/agents/${agentId}/unfreeze`, { reason: 'r' });
    expect((await chain.submit(engineer)).res.status).toBe(200);
    await admin('POST', `/v1/agents/${agentId}/revoke`, { reason: 'r' });
    expectError(await submit(chain.record()), 403, 'AGENT_REVOKED');
  });

  it('KEY_REVOKED 403 and KEY_RETIRED 403 (rule 3); an unknown kid is INVALID_SIGNATURE 400', async () => {
    const { chain, keys } = await agentWithKeys();
    expectError(await submit(chain.record({ key: keys.k2 })), 403, 'KEY_REVOKED');
    expectError(await submit(chain.record({ key: keys.k3 })), 403, 'KEY_RETIRED');
    expectError(await submit(chain.record({ key: newKey('k9') })), 400, 'INVALID_SIGNATURE');
  });

  it('INVALID_SIGNATURE 400 for a wrong signature or a payload that does not match payload_hash (rule 4)', async () => {
    const { chain, keys } = await agentWithKeys();
    const other = newKey('k1'); // same kid, different key
    expectError(await submit(chain.record({ key: other })), 400, 'INVALID_SIGNATURE');
    expectError(await submit(chain.record({ after: { payload: { n: 'changed' } } })), 400, 'INVALID_SIGNATURE');
    expectError(await submit(chain.record({ after: { operation_type: 'test.other' } })), 400, 'INVALID_SIGNATURE');
    expect((await chain.submit(engineer, { key: keys.k1 })).res.status).toBe(200);
  });

  it('TTL_EXPIRED 400 (rule 5) and VALIDATION_ERROR 400 for issued_at over 5 minutes ahead', async () => {
    const { chain } = await agentWithKeys();
    expectError(await submit(chain.record({ fields: { issued_at: Date.now() - 10_000, ttl_ms: 5_000 } })), 400, 'TTL_EXPIRED');
    expectError(await submit(chain.record({ fields: { issued_at: Date.now() + 6 * 60_000 } })), 400, 'VALIDATION_ERROR');
  });

  it('REPLAY_DETECTED 400 for a nonce used before, even on the right head (rule 6)', async () => {
    const { chain, first } = await withOneAccepted();
    expectError(await submit(chain.record({ fields: { nonce: first.nonce } })), 400, 'REPLAY_DETECTED');
    // The very same record again is a replay too.
    expectError(await submit(first), 400, 'REPLAY_DETECTED');
  });

  it('PREV_HASH_MISMATCH 400 for a stale or made-up prev_chain_hash (rule 7)', async () => {
    const { chain } = await withOneAccepted();
    expectError(await submit(chain.record({ fields: { prev_chain_hash: GENESIS } })), 400, 'PREV_HASH_MISMATCH');
    expectError(await submit(chain.record({ fields: { prev_chain_hash: payloadHash('x') } })), 400, 'PREV_HASH_MISMATCH');
    expect((await chain.submit(engineer)).res.status).toBe(200);
  });

  it('PAYLOAD_TOO_LARGE 400 past the canonical limit (rule 8)', async () => {
    const { chain } = await agentWithKeys();
    expectError(await submit(chain.record({ payload: 'x'.repeat(MAX_PAYLOAD - 1) })), 400, 'PAYLOAD_TOO_LARGE');
  });

  it('VALIDATION_ERROR 409 for an operation_id already used in the organization', async () => {
    const { chain, first } = await withOneAccepted();
    const res = await submit(chain.record({ fields: { operation_id: first.operation_id } }));
    expectError(res, 409, 'VALIDATION_ERROR');
    // Nothing of the refused record was recorded: the chain continues from the same head.
    expect((await chain.submit(engineer)).res.body.receipt.seq_no).toBe(2);
  });
});

describe('check order when two rules fail at once (docs/PROTOCOL.md)', () => {
  const expired = () => ({ issued_at: Date.now() - 10_000, ttl_ms: 1 });

  it('no token beats a malformed body; a forbidden role beats it too', async () => {
    expectError(await submit({ junk: true }, stack.api()), 401, 'UNAUTHORIZED');
    const auditor = await seedUser(orgId, 'compliance_auditor');
    expectError(await submit({ junk: true }, stack.api(auditor.token)), 403, 'FORBIDDEN');
  });

  it('a malformed body beats a foreign org_id; a foreign org_id beats an unknown agent', async () => {
    const { chain } = await agentWithKeys();
    expectError(await submit({ ...chain.record({ fields: { org_id: otherOrgId } }), extra: 1 }), 400, 'VALIDATION_ERROR');
    expectError(await submit(chain.record({ fields: { org_id: otherOrgId, agent_id: uniqueAgentId('ghost') } })), 403, 'FORBIDDEN');
  });

  it('UNKNOWN_AGENT beats a bad signature', async () => {
    const { chain } = await agentWithKeys();
    expectError(await submit(chain.record({ fields: { agent_id: uniqueAgentId('ghost') }, key: newKey('k1') })), 404, 'UNKNOWN_AGENT');
  });

  it('AGENT_FROZEN beats a revoked key; AGENT_REVOKED beats an expired record', async () => {
    const { chain, keys, agentId } = await agentWithKeys();
    await admin('POST', `/v1/agents/${agentId}/freeze`, { reason: 'r' });
    expectError(await submit(chain.record({ key: keys.k2 })), 403, 'AGENT_FROZEN');
    await admin('POST', `/v1/agents/${agentId}/revoke`, { reason: 'r' });
    expectError(await submit(chain.record({ fields: expired() })), 403, 'AGENT_REVOKED');
  });

  it('an unknown kid beats an oversized payload; KEY_RETIRED beats an expired record', async () => {
    const { chain, keys } = await agentWithKeys();
    expectError(await submit(chain.record({ key: newKey('k9'), payload: 'x'.repeat(MAX_PAYLOAD) })), 400, 'INVALID_SIGNATURE');
    expectError(await submit(chain.record({ key: keys.k3, fields: expired() })), 403, 'KEY_RETIRED');
  });

  it('PAYLOAD_TOO_LARGE beats a payload_hash mismatch', async () => {
    const { chain } = await agentWithKeys();
    expectError(await submit(chain.record({ payload: 'x'.repeat(MAX_PAYLOAD), after: { payload_hash: payloadHash(null) } })), 400, 'PAYLOAD_TOO_LARGE');
  });

  it('INVALID_SIGNATURE beats TTL_EXPIRED; TTL_EXPIRED beats REPLAY_DETECTED', async () => {
    const { chain, first } = await withOneAccepted();
    expectError(await submit(chain.record({ key: newKey('k1'), fields: expired() })), 400, 'INVALID_SIGNATURE');
    expectError(await submit(chain.record({ fields: { ...expired(), nonce: first.nonce } })), 400, 'TTL_EXPIRED');
  });

  it('issued_at too far ahead (VALIDATION_ERROR) beats REPLAY_DETECTED', async () => {
    const { chain, first } = await withOneAccepted();
    expectError(await submit(chain.record({ fields: { issued_at: Date.now() + 10 * 60_000, nonce: first.nonce } })), 400, 'VALIDATION_ERROR');
  });

  it('REPLAY_DETECTED beats PREV_HASH_MISMATCH', async () => {
    const { chain, first } = await withOneAccepted();
    const stale: OperationRecord = chain.record({ fields: { prev_chain_hash: GENESIS, nonce: first.nonce } });
    expectError(await submit(stale), 400, 'REPLAY_DETECTED');
  });

  it('PREV_HASH_MISMATCH beats a reused operation_id', async () => {
    const { chain, first } = await withOneAccepted();
    expectError(await submit(chain.record({ fields: { prev_chain_hash: GENESIS, operation_id: first.operation_id } })), 400, 'PREV_HASH_MISMATCH');
  });
});

describe('reading', () => {
  it('answers unknown operations with NOT_FOUND 404 on GET and verify', async () => {
    const { chain } = await agentWithKeys();
    const unknown = chain.record().operation_id;
    expectError(await engineer('GET', `/v1/operations/${unknown}`), 404, 'NOT_FOUND');
    expectError(await engineer('POST', `/v1/operations/${unknown}/verify`), 404, 'NOT_FOUND');
  });
});
