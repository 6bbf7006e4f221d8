// Failure behaviour of submission, by fault injection on the runtime singletons the
// handlers use (the object store client, the signer, the table client), never on a mocked
// table. Submission signs its receipt before the commit and does nothing after it
// (domain/ledger/submit-operation.ts), so every failure is one before or in the
// transaction: nothing is recorded, the answer is INTERNAL_ERROR (or RATE_LIMITED for a
// throttled signer), and the same record then succeeds with a receipt that verifies.
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GENESIS, verifyReceipt } from '@agent-ledger/protocol';
import { KMSClient } from '@aws-sdk/client-kms';
import { EnvelopeSigner } from '../../lambdas/adapters/aws/envelope-signer.js';
import { ReceiptKeyAttestor } from '../../lambdas/adapters/aws/receipt-key-attestor.js';
import { SignerBusyError } from '../../lambdas/domain/ports.js';
import { receiptKeyStore } from '../../lambdas/store/receipt-keys.js';
import { startKmsStandIn } from '../../scripts/rehearse/kms-standin.js';
import { signer } from '../../lambdas/runtime/signer.js';
import { dynamo, s3 } from '../../lambdas/store/clients.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { type Api, type Loose } from '../support/http-client.js';
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

async function jwks() {
  return (await fetch(`${stack.baseUrl}/.well-known/service/jwks.json`).then((r) => r.json())) as { keys: [] };
}

function expectInternalError(res: { status: number; body: Loose }) {
  expect(res.status).toBe(500);
  expect(res.body.error.code).toBe('INTERNAL_ERROR');
  expect(res.body.error.message).not.toMatch(/S3|KMS|Dynamo|injected/i); // a 5xx never leaks internals
}

/** Nothing of `record` was written, and submitting it again is accepted with a receipt that verifies. */
async function expectNothingRecordedThenAccepted(chain: ClientChain, record: ReturnType<ClientChain['record']>) {
  expect((await api('GET', `/v1/operations/${record.operation_id}`)).status).toBe(404);
  expect(await head(chain)).toEqual({ seq_no: 0, chain_hash: GENESIS });
  const retry = await api('POST', '/v1/operations', record);
  expect(retry.status).toBe(200);
  expect(retry.body.receipt.seq_no).toBe(1);
  expect(verifyReceipt(retry.body.receipt, await jwks())).toBe(true);
  expect((await api('POST', `/v1/operations/${record.operation_id}/verify`)).body).toEqual({
    valid: true,
    checks: { signature: true, chain: true, receipt: true },
  });
}

describe('every failure is before or in the commit: nothing is recorded', () => {
  it('a failing payload put (a payload too big for the row) answers INTERNAL_ERROR; the same record then succeeds', async () => {
    const chain = await newChain();
    const record = chain.record({ payload: { blob: 'x'.repeat(4096) } });
    failSend(s3(), PutObjectCommand, new Error('injected S3 outage'));
    expectInternalError(await api('POST', '/v1/operations', record));
    await expectNothingRecordedThenAccepted(chain, record);
  });

  it('a failing signer answers INTERNAL_ERROR: the receipt is signed before the commit, so nothing is recorded', async () => {
    const chain = await newChain();
    const record = chain.record();
    vi.spyOn(signer(), 'sign').mockRejectedValueOnce(new Error('injected KMS outage'));
    expectInternalError(await api('POST', '/v1/operations', record));
    await expectNothingRecordedThenAccepted(chain, record);
  });

  it('a throttled signer (KMS quota) answers RATE_LIMITED with Retry-After, and nothing is recorded', async () => {
    const chain = await newChain();
    const record = chain.record();
    vi.spyOn(signer(), 'sign').mockRejectedValueOnce(new SignerBusyError());
    const res = await stack.call('POST', '/v1/operations', { token: (await seedUser(orgId, 'integration_engineer')).token, body: record });
    expect(res.status).toBe(429);
    expect(res.json.error.code).toBe('RATE_LIMITED');
    expect(res.headers.get('retry-after')).toBe('1');
    await expectNothingRecordedThenAccepted(chain, record);
  });

  it('a signer whose key cannot be decrypted at cold start (receiptSigner=envelope) answers SERVICE_UNAVAILABLE 503 with Retry-After, and nothing is recorded', async () => {
    const wrap = 'arn:aws:kms:us-east-1:111111111111:key/wrap';
    const attest = 'arn:aws:kms:us-east-1:111111111111:key/attest';
    const kmsStandIn = await startKmsStandIn([
      { arn: wrap, spec: 'SYMMETRIC_DEFAULT' },
      { arn: attest, spec: 'ECC_NIST_EDWARDS25519' },
    ]);
    try {
      // A stored generation whose ciphertext this wrapping key did not make: KMS refuses to decrypt it.
      const generation = 900_000 + Math.floor(Math.random() * 90_000);
      await receiptKeyStore.create({ generation, kid: 'kid', x: 'x', ciphertext: new Uint8Array(64).fill(7), createdAt: Date.now() });
      const kms = new KMSClient({ region: 'us-east-1', endpoint: kmsStandIn.endpoint, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 });
      const coldStart = new EnvelopeSigner(kms, receiptKeyStore, wrap, new ReceiptKeyAttestor(kms, attest), generation);
      const chain = await newChain();
      const record = chain.record();
      vi.spyOn(signer(), 'sign').mockImplementationOnce((message) => coldStart.sign(message));
      const res = await stack.call('POST', '/v1/operations', { token: (await seedUser(orgId, 'integration_engineer')).token, body: record });
      expect(res.status).toBe(503);
      expect(res.json.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.json.error.message).not.toMatch(/KMS|Decrypt|ciphertext/i); // a 5xx never leaks internals
      expect(res.headers.get('retry-after')).toBe('5');
      await expectNothingRecordedThenAccepted(chain, record);
    } finally {
      await kmsStandIn.stop();
    }
  });

  it('a failing transaction (network error) answers INTERNAL_ERROR with nothing written; the nonce stays unused', async () => {
    const chain = await newChain();
    const record = chain.record();
    failSend(dynamo(), TransactWriteCommand, new Error('injected socket hang up'));
    expectInternalError(await api('POST', '/v1/operations', record));
    await expectNothingRecordedThenAccepted(chain, record);
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
    await expectNothingRecordedThenAccepted(chain, record);
  });
});
