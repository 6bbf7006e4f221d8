/**
 * The SDK (docs/API.md §2.1): submit() fills every generated field and keeps the chain head,
 * resynchronises after PREV_HASH_MISMATCH, retries RATE_LIMITED honouring Retry-After, and
 * reports transport failures plainly; verifyReceipt() checks a receipt and its record offline.
 */
import { newAgentKey } from '../src/sdk/key-proof.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, GENESIS, type Receipt } from '@agent-ledger/protocol';
import { startTestStack, type TestStack } from '../../test/support/test-stack.js';
import { seedOrg, seedUser } from '../../test/support/seed-identity.js';
import { LedgerClient, type SigningAgent } from '../src/sdk/client.js';
import { LedgerApiError, LedgerTransportError } from '../src/sdk/errors.js';
import { backoffMs, DEFAULT_RETRY } from '../src/sdk/retry.js';
import { verifyReceipt } from '../src/sdk/verify-receipt.js';

let stack: TestStack;
let ledger: LedgerClient;
let orgId: string;

beforeAll(async () => {
  stack = await startTestStack();
  orgId = await seedOrg('SDK');
  const owner = await seedUser(orgId, 'org_owner');
  ledger = new LedgerClient({ url: stack.baseUrl, token: owner.token });
});
afterAll(() => stack?.stop());

async function newAgent(agentId: string): Promise<SigningAgent & { publicKey: string }> {
  const { publicKey, privateKey } = generateKeyPair();
  await ledger.registerAgent({ agent_id: agentId, integration_type: 'sdk', keys: [newAgentKey(privateKey, { orgId, agentId, kid: 'k1' })] });
  return { orgId, agentId, kid: 'k1', privateKey, publicKey };
}

const input = (n: number) => ({ operation_type: 'deploy.start', subject: { kind: 'service', id: 'api' }, action: { verb: 'deploy', target: `v${n}` }, payload: { n } });

describe('LedgerClient.submit against the local stack', () => {
  it('fills the generated fields, fetches an unknown head, and chains records', async () => {
    const agent = await newAgent('sdk-chain');
    const first = await ledger.submit(agent, input(1));
    expect(first.record).toMatchObject({ op_version: '1.0', prev_chain_hash: GENESIS, ttl_ms: 60_000, agent_pubkey_kid: 'k1' });
    expect(first.record.operation_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first.record.nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Math.abs(first.record.issued_at - Date.now())).toBeLessThan(10_000);
    const second = await ledger.submit(agent, input(2));
    expect(second.record.prev_chain_hash).toBe(first.receipt.chain_hash);
    expect([first.receipt.seq_no, second.receipt.seq_no]).toEqual([1, 2]);
    expect(await ledger.chainHead('sdk-chain')).toEqual(second.head);
  });

  it('resynchronises from GET /v1/agents/:id after PREV_HASH_MISMATCH', async () => {
    const agent = await newAgent('sdk-resync');
    await ledger.submit(agent, input(1));
    const stale = agent.head!;
    // Another writer (a second process of the same agent) moves the chain on.
    await ledger.submit({ ...agent, head: stale }, input(2));
    agent.head = stale;
    const third = await ledger.submit(agent, input(3));
    expect(third.receipt.seq_no).toBe(3);
  });

  it('surfaces refusals as LedgerApiError with the docs/API.md §7 code', async () => {
    const agent = await newAgent('sdk-frozen');
    await ledger.freezeAgent('sdk-frozen', 'test');
    const error = await ledger.submit(agent, input(1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerApiError);
    expect(error).toMatchObject({ status: 403, code: 'AGENT_FROZEN' });
  });

  it('verifyReceipt passes every check for a real receipt and names the one a changed byte breaks', async () => {
    const agent = await newAgent('sdk-verify');
    const { receipt, record } = await ledger.submit(agent, input(1));
    const jwks = await ledger.jwks();
    const ok = verifyReceipt(receipt, jwks, { record, agentPublicKey: agent.publicKey });
    expect(ok.valid).toBe(true);
    expect(ok.checks.map((c) => [c.name, c.ok])).toEqual([
      ['receipt fields', true],
      ['receipt hash', true],
      ['service signature', true],
      ['record identity', true],
      ['chain hash', true],
      ['payload hash', true],
      ['agent signature', true],
    ]);
    const failing = (r: unknown, rec: unknown = record) =>
      verifyReceipt(r as Receipt, jwks, { record: rec as typeof record, agentPublicKey: agent.publicKey }).checks.filter((c) => c.ok === false).map((c) => c.name);
    expect(failing({ ...receipt, seq_no: receipt.seq_no + 1 })).toEqual(['receipt hash', 'service signature']);
    // A first character other than the signature's own, so the signature always changes.
    const changed = receipt.service_signature.startsWith('B') ? 'C' : 'B';
    expect(failing({ ...receipt, service_signature: `${changed}${receipt.service_signature.slice(1)}` })).toEqual(['service signature']);
    expect(failing(receipt, { ...record, payload: { n: 2 } })).toEqual(['payload hash']);
    expect(failing(receipt, { ...record, action: { verb: 'deploy', target: 'v9' } })).toEqual(['chain hash', 'agent signature']);
    expect(verifyReceipt(receipt, { keys: [] }).valid).toBe(false);
  });
});

/** A scripted HTTP server: answers[i] for the i-th request. */
async function scripted(answers: Array<(req: IncomingMessage, res: ServerResponse) => void>) {
  const seen: number[] = [];
  const server = createServer((req, res) => {
    seen.push(Date.now());
    req.resume();
    (answers[Math.min(seen.length - 1, answers.length - 1)] as (req: IncomingMessage, res: ServerResponse) => void)(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() };
}
const rateLimited = (retryAfter?: string) => (_: IncomingMessage, res: ServerResponse) => {
  res.writeHead(429, { 'content-type': 'application/json', ...(retryAfter ? { 'retry-after': retryAfter } : {}) });
  res.end(JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'slow down', request_id: 'r' } }));
};
const healthy = (_: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"status":"ok"}');
};

describe('RATE_LIMITED, backoff and transport failures', () => {
  it('waits at least Retry-After before retrying', async () => {
    const server = await scripted([rateLimited('1'), healthy]);
    try {
      const client = new LedgerClient({ url: server.url, retry: { baseDelayMs: 1, maxDelayMs: 5_000 } });
      expect(await client.health()).toEqual({ status: 'ok' });
      expect(server.seen).toHaveLength(2);
      expect(server.seen[1]! - server.seen[0]!).toBeGreaterThanOrEqual(990);
    } finally {
      server.close();
    }
  });

  it('backs off exponentially and gives up after maxAttempts with the RATE_LIMITED error', async () => {
    const server = await scripted([rateLimited()]);
    try {
      const client = new LedgerClient({ url: server.url, retry: { maxAttempts: 4, baseDelayMs: 20, maxDelayMs: 1_000 } });
      await expect(client.health()).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(server.seen).toHaveLength(4);
      const gaps = server.seen.slice(1).map((t, i) => t - server.seen[i]!);
      expect(gaps[2]!).toBeGreaterThanOrEqual(40); // third wait: 80 ms, jittered to at least half
    } finally {
      server.close();
    }
  });

  it('backoffMs: doubles per attempt with jitter, never below Retry-After, never above the cap', () => {
    const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffMs(policy, 1, undefined, () => 1)).toBe(100);
    expect(backoffMs(policy, 3, undefined, () => 1)).toBe(400);
    expect(backoffMs(policy, 3, undefined, () => 0)).toBe(200);
    expect(backoffMs(policy, 10, undefined, () => 1)).toBe(1_000);
    expect(backoffMs(policy, 1, 700, () => 0)).toBe(700);
  });

  it('a closed port and a proxy page are transport errors with a plain message', async () => {
    const closed = await scripted([healthy]);
    closed.close();
    await expect(new LedgerClient({ url: closed.url }).health()).rejects.toThrow(LedgerTransportError);
    await expect(new LedgerClient({ url: closed.url }).health()).rejects.toThrow(/connection refused/);
    const proxy = await scripted([(_, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>')]);
    try {
      await expect(new LedgerClient({ url: proxy.url }).health()).rejects.toThrow(/HTTP 502 with a body that is not JSON/);
    } finally {
      proxy.close();
    }
    expect(() => new LedgerClient({ url: 'ftp://example.com' })).toThrow(/must be http\(s\)/);
  });
});
