// Failure behaviour of submission, by fault injection on the runtime
// singletons the handlers use (the object store client, the signer, the table client, the
// queue), never on a mocked table: a failure before or in the transaction records nothing
// and answers INTERNAL_ERROR; a failure after it leaves a committed operation that GET and
// verify complete, so none stays without a verifiable receipt.
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GENESIS, verifyReceipt, type Receipt } from '@agent-ledger/protocol';
import { config } from '../../lambdas/config.js';
import { queue } from '../../lambdas/runtime/queue.js';
import { signer } from '../../lambdas/runtime/signer.js';
import { dynamo, s3 } from '../../lambdas/store/clients.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { type Api, type Loose } from '../support/http-client.js';
import { recordQueue } from '../support/ledger-inspect.js';
import { seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
let orgId: string;
let api: Api;

beforeAll(async () => {
  ({ orgId, api: { integration_engineer: api } } = await stack.org('integration_engineer'));
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function newChain(): Promise<ClientChain> {
  const agentId = uniqueAgentId();
  const key = newKey();
  const admin = stack.api((await seedUser(orgId, 'org_owner')).token);
  await registerAgent(admin, agentId, [key]);
  return new ClientChain(orgId, agentId, key);
}

/** Makes the next `times` calls of `send` with a command of class `type` (and matching `when`) fail. */
function failSend(
  client: { send: (...args: Loose[]) => Promise<unknown> },
  type: abstract new (...args: Loose[]) => object,
  error: Error,
  times = 1,
  when: (input: Loose) => boolean = () => true,
) {
  const original = client.send.bind(client);
  let left = times;
  return vi.spyOn(client, 'send').mockImplementation(async (command: Loose, ...rest: Loose[]) => {
    if (left > 0 && command instanceof type && when((command as { input: unknown }).input)) {
      left -= 1;
      throw error;
    }
    return original(command, ...rest);
  });
}

async function head(chain: ClientChain) {
  const admin = stack.api((await seedUser(orgId, 'org_owner')).token);
  return (await admin('GET', `/v1/agents/${chain.agentId}`)).body.chain as { seq_no: number; chain_hash: string };
}

async function storedReceipt(key: string): Promise<Receipt> {
  const out = await s3().send(new GetObjectCommand({ Bucket: config().dataBucket, Key: key }));
  return JSON.parse(await out.Body!.transformToString()) as Receipt;
}

async function jwks() {
  return (await fetch(`${stack.baseUrl}/.well-known/service/jwks.json`).then((r) => r.json())) as { keys: [] };
}

function expectInternalError(res: { status: number; body: Loose }) {
  expect(res.status).toBe(500);
  expect(res.body.error.code).toBe('INTERNAL_ERROR');
  expect(res.body.error.message).not.toMatch(/S3|KMS|Dynamo|injected/i); // a 5xx never leaks internals
}

describe('before the commit: nothing is recorded', () => {
  it('a failing payload put answers INTERNAL_ERROR; the same record then succeeds', async () => {
    const chain = await newChain();
    const record = chain.record();
    failSend(s3(), PutObjectCommand, new Error('injected S3 outage'));
    expectInternalError(await api('POST', '/v1/operations', record));
    expect((await api('GET', `/v1/operations/${record.operation_id}`)).status).toBe(404);
    expect(await head(chain)).toEqual({ seq_no: 0, chain_hash: GENESIS });

    const retry = await api('POST', '/v1/operations', record);
    expect(retry.status).toBe(200);
    expect(retry.body.receipt.seq_no).toBe(1);
  });

  it('a failing transaction (network error) answers INTERNAL_ERROR with nothing written; the nonce stays unused', async () => {
    const chain = await newChain();
    const record = chain.record();
    failSend(dynamo(), TransactWriteCommand, new Error('injected socket hang up'));
    expectInternalError(await api('POST', '/v1/operations', record));
    expect((await api('GET', `/v1/operations/${record.operation_id}`)).status).toBe(404);
    expect(await head(chain)).toEqual({ seq_no: 0, chain_hash: GENESIS });
    expect((await api('POST', '/v1/operations', record)).status).toBe(200);
  });

  it('a transaction cancelled for an infrastructure reason (throttling) is INTERNAL_ERROR, not a rule violation', async () => {
    const chain = await newChain();
    const record = chain.record();
    const throttled = new TransactionCanceledException({
      message: 'Transaction cancelled',
      $metadata: {},
      CancellationReasons: [{ Code: 'None' }, { Code: 'ThrottlingError' }, { Code: 'None' }],
    });
    failSend(dynamo(), TransactWriteCommand, throttled);
    expectInternalError(await api('POST', '/v1/operations', record));
    expect(await head(chain)).toEqual({ seq_no: 0, chain_hash: GENESIS });
    expect((await api('POST', '/v1/operations', record)).status).toBe(200);
  });
});

describe('after the commit: GET and verify complete the receipt', () => {
  it('a failing signer: INTERNAL_ERROR, GET still shows the operation, a later GET writes a receipt that verifies', async () => {
    const chain = await newChain();
    const record = chain.record();
    const queueLog = recordQueue(stack.queue);
    // The submission's signing fails, and so does the first GET's attempt to complete it.
    vi.spyOn(signer(), 'sign').mockRejectedValueOnce(new Error('injected KMS outage')).mockRejectedValueOnce(new Error('injected KMS outage'));
    expectInternalError(await api('POST', '/v1/operations', record));

    const whileDown = await api('GET', `/v1/operations/${record.operation_id}`);
    expect(whileDown.status).toBe(200);
    expect(whileDown.body.operation).toMatchObject({ operation_id: record.operation_id, seq_no: 1 });
    expect(whileDown.body.receipt).toBeNull();
    expect(whileDown.body.payload).toEqual(record.payload);

    const later = await api('GET', `/v1/operations/${record.operation_id}`);
    expect(later.body.receipt).toMatchObject({ operation_id: record.operation_id, store_receipt_key: expect.stringMatching(/^receipts\//) });
    const receipt = await storedReceipt(later.body.receipt.store_receipt_key);
    expect(verifyReceipt(receipt, await jwks())).toBe(true);
    expect(receipt).toMatchObject({ receipt_id: later.body.receipt.receipt_id, seq_no: 1, server_received_at: later.body.operation.created_at });
    // Three operation.accepted messages went out (submission, failed GET, GET); the receipt
    // names the one whose completion won, the one the webhook worker will deliver.
    const ids = queueLog.events().filter((e) => e.body.data.operation_id === record.operation_id).map((e) => e.messageId);
    expect(ids).toHaveLength(3);
    expect(receipt.queue_message_id).toBe(ids[2]);
    expect((await api('POST', `/v1/operations/${record.operation_id}/verify`)).body).toEqual({
      valid: true,
      checks: { signature: true, chain: true, receipt: true },
    });
    // The chain went on: the client that saw INTERNAL_ERROR checks GET, then continues.
    chain.accept(record);
    expect((await chain.submit(api)).res.body.receipt.seq_no).toBe(2);
  });

  it('a failing queue send after commit: verify completes the receipt', async () => {
    const chain = await newChain();
    const record = chain.record();
    vi.spyOn(queue(), 'send').mockRejectedValueOnce(new Error('injected SQS outage'));
    expectInternalError(await api('POST', '/v1/operations', record));
    const verified = await api('POST', `/v1/operations/${record.operation_id}/verify`);
    expect(verified.body).toEqual({ valid: true, checks: { signature: true, chain: true, receipt: true } });
  });

  it('a failing receipt reference update: GET completes it', async () => {
    const chain = await newChain();
    const record = chain.record();
    failSend(dynamo(), UpdateCommand, new Error('injected DynamoDB outage'), 1, (input) => String(input.UpdateExpression).includes('queue_message_id'));
    expectInternalError(await api('POST', '/v1/operations', record));
    const got = await api('GET', `/v1/operations/${record.operation_id}`);
    expect(got.body.receipt).not.toBeNull();
    expect(verifyReceipt(await storedReceipt(got.body.receipt.store_receipt_key), await jwks())).toBe(true);
  });

  it('a failing receipt object put: the reference is fixed, GET rewrites the same receipt', async () => {
    const chain = await newChain();
    const record = chain.record();
    failSend(s3(), PutObjectCommand, new Error('injected S3 outage'), 1, (input) => String(input.Key).startsWith('receipts/'));
    expectInternalError(await api('POST', '/v1/operations', record));
    const got = await api('GET', `/v1/operations/${record.operation_id}`);
    expect(got.status).toBe(200);
    const receipt = await storedReceipt(got.body.receipt.store_receipt_key);
    expect(verifyReceipt(receipt, await jwks())).toBe(true);
    expect((await api('POST', `/v1/operations/${record.operation_id}/verify`)).body.valid).toBe(true);
  });

  it('concurrent completions (GETs and verifies racing) agree on one receipt', async () => {
    const chain = await newChain();
    const record = chain.record();
    vi.spyOn(signer(), 'sign').mockRejectedValueOnce(new Error('injected KMS outage'));
    expectInternalError(await api('POST', '/v1/operations', record));
    const path = `/v1/operations/${record.operation_id}`;
    const results = await Promise.all([
      ...Array.from({ length: 4 }, () => api('GET', path)),
      ...Array.from({ length: 4 }, () => api('POST', `${path}/verify`)),
    ]);
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    const references = results.slice(0, 4).map((r) => r.body.receipt);
    expect(new Set(references.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(results.slice(4).every((r) => r.body.valid === true)).toBe(true);
    const receipt = await storedReceipt(references[0].store_receipt_key);
    expect(verifyReceipt(receipt, await jwks())).toBe(true);
    expect((await api('POST', `${path}/verify`)).body.checks.receipt).toBe(true);
  });
});
