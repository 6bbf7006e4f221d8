// POST /v1/operations/:id/verify recomputes every check from stored data (docs/PROTOCOL.md
// "Verify endpoint"): it stays valid through key revocation and payload erasure, and each
// check turns false when the stored data it covers is altered behind the service's back.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalize, verifyReceipt } from '@agent-ledger/protocol';
import { ledgerKeys } from '../../lambdas/store/ledger-items.js';
import { config } from '../../lambdas/config.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { type Api } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { tamperPayload, tamperReceipt } from '../support/tamper.js';

const stack = useLedgerStack();
let orgId: string;
let api: Api;

beforeAll(async () => {
  ({ orgId, api: { org_owner: api } } = await stack.org('org_owner'));
});

const ALL_VALID = { valid: true, checks: { signature: true, chain: true, receipt: true } };

/** An agent with two accepted operations; returns their GET bodies. */
async function twoOperations() {
  const agentId = uniqueAgentId();
  const key = newKey('k1');
  await registerAgent(api, agentId, [key, newKey('k2')]);
  const chain = new ClientChain(orgId, agentId, key);
  const first = await chain.submit(api, { payload: { step: 1, secret: 'pii' } });
  // Over LEDGER_INLINE_PAYLOAD_BYTES: this payload is an object of the data bucket, the first one lives in the row.
  const second = await chain.submit(api, { payload: 'second '.repeat(400) });
  const [a, b] = await Promise.all([first, second].map(({ record }) => api('GET', `/v1/operations/${record.operation_id}`)));
  return { agentId, chain, first: a!.body, second: { ...b!.body, receiptBody: second.res.body.receipt } };
}

const verify = (operationId: string) => api('POST', `/v1/operations/${operationId}/verify`).then((res) => res.body);

async function setRowAttribute(operationId: string, name: string, value: string) {
  await dynamo().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: ledgerKeys.operation(orgId, operationId),
      UpdateExpression: 'SET #n = :v',
      ExpressionAttributeNames: { '#n': name },
      ExpressionAttributeValues: { ':v': value },
    }),
  );
}

describe('GET /v1/operations/:id', () => {
  it('returns the docs/API.md §2.2 row, the receipt reference and the payload', async () => {
    const { first, agentId } = await twoOperations();
    expect(Object.keys(first).sort()).toEqual(['operation', 'payload', 'previous_operation_id', 'receipt', 'signed_receipt']);
    expect(first.operation).toMatchObject({ agent_id: agentId, org_id: orgId, seq_no: 1, subject: '{"id":"acme/app","kind":"repository"}', action: '{"verb":"run"}' });
    expect(Object.keys(first.operation)).toHaveLength(17);
    expect(first.receipt).toEqual({
      receipt_id: expect.any(String),
      operation_id: first.operation.operation_id,
      // Named by the receipt's queue message id (ledger-items.ts objectKeys.receipt).
      store_receipt_key: expect.stringMatching(new RegExp(`^receipts/${orgId}/${first.operation.operation_id}/[0-9a-f-]{36}\\.json$`)),
      created_at: expect.any(Number),
    });
    expect(first.payload).toEqual({ step: 1, secret: 'pii' });
  });

  it('carries what an outside verifier needs: the signed receipt as stored and the predecessor’s id', async () => {
    const { first, second } = await twoOperations();
    const jwks = (await api('GET', '/.well-known/service/jwks.json')).body;
    expect(verifyReceipt(first.signed_receipt, jwks)).toBe(true);
    expect(first.signed_receipt).toMatchObject({ operation_id: first.operation.operation_id, seq_no: 1, chain_hash: first.operation.chain_hash });
    expect(first.previous_operation_id).toBeNull();
    expect(second.previous_operation_id).toBe(first.operation.operation_id);
    // Tampered evidence is shown as stored, so the verifier sees it fail: another receipt's hash.
    const tampered = { ...first.signed_receipt, receipt_hash: second.signed_receipt.receipt_hash };
    await tamperReceipt(orgId, first.operation.operation_id, tampered);
    const again = (await api('GET', `/v1/operations/${first.operation.operation_id}`)).body;
    expect(again.signed_receipt).toEqual(tampered);
    expect(verifyReceipt(again.signed_receipt, jwks)).toBe(false);
  });
});

describe('verify', () => {
  it('is valid for accepted operations, also after their key is retired or revoked and the agent frozen', async () => {
    const { agentId, first, second } = await twoOperations();
    expect(await verify(first.operation.operation_id)).toEqual(ALL_VALID);
    await api('POST', `/v1/agents/${agentId}/keys/k1/retire`);
    await api('POST', `/v1/agents/${agentId}/revoke`, { kid: 'k1', reason: 'rotated' });
    await api('POST', `/v1/agents/${agentId}/freeze`, { reason: 'audit' });
    expect(await verify(first.operation.operation_id)).toEqual(ALL_VALID);
    expect(await verify(second.operation.operation_id)).toEqual(ALL_VALID);
  });

  it('signature turns false when the stored payload is deleted behind the service (no erasure mark); GET then omits it', async () => {
    const { first } = await twoOperations();
    await tamperPayload(orgId, first.operation.operation_id, null);
    expect(await verify(first.operation.operation_id)).toEqual({ valid: false, checks: { signature: false, chain: true, receipt: true } });
    const got = await api('GET', `/v1/operations/${first.operation.operation_id}`);
    expect(got.status).toBe(200);
    expect('payload' in got.body).toBe(false);
    expect('payload_erased' in got.body).toBe(false);
  });

  it('signature turns false when the stored payload no longer matches payload_hash', async () => {
    const { first } = await twoOperations();
    await tamperPayload(orgId, first.operation.operation_id, canonicalize({ step: 1, secret: 'forged' }));
    expect(await verify(first.operation.operation_id)).toEqual({ valid: false, checks: { signature: false, chain: true, receipt: true } });
  });

  it('signature and chain turn false when a signed member of the row is altered', async () => {
    const { first } = await twoOperations();
    await setRowAttribute(first.operation.operation_id, 'subject', '{"id":"other/repo","kind":"repository"}');
    expect(await verify(first.operation.operation_id)).toEqual({ valid: false, checks: { signature: false, chain: false, receipt: true } });
  });

  it('chain turns false for the successor when a predecessor’s chain_hash is altered', async () => {
    const { first, second } = await twoOperations();
    await setRowAttribute(first.operation.operation_id, 'chain_hash', second.operation.chain_hash);
    expect((await verify(second.operation.operation_id)).checks).toEqual({ signature: true, chain: false, receipt: true });
    // ...and for the altered row itself, whose stored chain_hash no longer recomputes.
    expect((await verify(first.operation.operation_id)).checks.chain).toBe(false);
  });

  it('receipt turns false when the stored receipt is altered or replaced by another operation’s', async () => {
    const { first, second } = await twoOperations();
    await tamperReceipt(orgId, first.operation.operation_id, { not: 'a receipt' });
    expect(await verify(first.operation.operation_id)).toEqual({ valid: false, checks: { signature: true, chain: true, receipt: false } });
    // A genuine, validly signed receipt of another operation does not stand in.
    await tamperReceipt(orgId, first.operation.operation_id, second.receiptBody);
    expect((await verify(first.operation.operation_id)).checks.receipt).toBe(false);
  });
});
