// The chain under concurrency (docs/PROTOCOL.md: "of two concurrent submissions on the same chain
// head exactly one is accepted"): a burst on one head, many agents in parallel verified end
// to end, and state changes that land while a submission is in flight.
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClientChain, keyBody, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { type Api, type Loose } from '../support/http-client.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { beforeRequest } from '../support/before-request.js';
import { dynamo } from '../../lambdas/store/clients.js';

const stack = useLedgerStack({ env: { LEDGER_RATE_LIMIT_RPS: '1000000' } });
let orgId: string;
let admin: Api;
let engineer: Api;

beforeAll(async () => {
  // This file measures the chain, not the organization's request rate limit.
  ({ orgId, api: { org_owner: admin, integration_engineer: engineer } } = await stack.org('org_owner', 'integration_engineer'));
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function newChain(): Promise<ClientChain> {
  const agentId = uniqueAgentId();
  const key = newKey('k1');
  await registerAgent(admin, agentId, [key]);
  return new ClientChain(orgId, agentId, key);
}

/** Runs `task` over `items` with at most `limit` in flight. */
async function pool<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await task(items[index]!);
      }
    }),
  );
  return results;
}

describe('one chain head, many submissions', () => {
  it('accepts exactly one of 50 concurrent submissions on the same head; the rest get PREV_HASH_MISMATCH', async () => {
    const chain = await newChain();
    expect((await chain.submit(engineer)).res.status).toBe(200); // a head past GENESIS
    const records = Array.from({ length: 50 }, () => chain.record());
    const results = await Promise.all(records.map((record) => engineer('POST', '/v1/operations', record)));

    const accepted = results.flatMap((res, i) => (res.status === 200 ? [{ res, record: records[i]! }] : []));
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.res.body.receipt.seq_no).toBe(2);
    const refused = results.filter((res) => res.status !== 200);
    expect(refused.map((res) => `${res.status} ${res.body.error.code}`)).toEqual(Array(49).fill('400 PREV_HASH_MISMATCH'));

    // Nothing of the 49 was recorded, and the head is the winner's.
    chain.accept(accepted[0]!.record);
    expect((await admin('GET', `/v1/agents/${chain.agentId}`)).body.chain).toEqual({ seq_no: 2, chain_hash: chain.head });
    const losers = records.filter((record) => record !== accepted[0]!.record).slice(0, 10);
    for (const record of losers) expect((await engineer('GET', `/v1/operations/${record.operation_id}`)).status).toBe(404);
    expect((await chain.submit(engineer)).res.body.receipt.seq_no).toBe(3);
  });
});

describe('many agents in parallel', () => {
  // 20 chains of 25: the same parallelism as any larger run, in half the requests, so that a
  // machine loaded by the whole suite finishes it inside the timeout.
  it('records 500 operations over 20 agents gap-free, and every one verifies', { timeout: 240_000 }, async () => {
    const AGENTS = 20;
    const PER_AGENT = 25;
    const chains = await Promise.all(Array.from({ length: AGENTS }, () => newChain()));

    // Each agent's chain is sequential (its client waits for each receipt); agents run in parallel.
    // The first failure stops every chain, so that none goes on submitting under the next tests.
    let failed = false;
    const receipts = await Promise.all(
      chains.map(async (chain) => {
        const seqNos: number[] = [];
        const ids: string[] = [];
        for (let i = 0; i < PER_AGENT && !failed; i++) {
          const { record, res } = await chain.submit(engineer);
          failed ||= res.status !== 200;
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expect(res.body.receipt.chain_hash).toBe(chain.head);
          seqNos.push(res.body.receipt.seq_no);
          ids.push(record.operation_id);
        }
        return { chain, seqNos, ids };
      }),
    );

    for (const { chain, seqNos } of receipts) {
      expect(seqNos).toEqual(Array.from({ length: PER_AGENT }, (_, i) => i + 1));
      expect((await admin('GET', `/v1/agents/${chain.agentId}`)).body.chain).toEqual({ seq_no: PER_AGENT, chain_hash: chain.head });
    }

    const ids = receipts.flatMap((r) => r.ids);
    expect(new Set(ids).size).toBe(AGENTS * PER_AGENT);
    const verdicts = await pool(ids, 16, async (id) => (await admin('POST', `/v1/operations/${id}/verify`)).body);
    const invalid = verdicts.filter((v) => !(v.valid === true && v.checks.signature && v.checks.chain && v.checks.receipt));
    expect(invalid).toEqual([]);
  });
});

describe('state changes while a submission is in flight', () => {
  // A submission's transaction: the operation row (sk OP), the agent's head and the nonce
  // (store/operations.ts submissionWrites); the key history's appends are three items too.
  const isSubmission = (command: Loose) => command instanceof TransactWriteCommand && command.input.TransactItems?.length === 3 && command.input.TransactItems[0]?.Put?.Item?.sk === 'OP';
  /** Runs `change` once, just before the submission's transaction reaches the table. */
  function beforeCommit(change: () => Promise<unknown>) {
    beforeRequest(isSubmission, change);
  }

  it('a key revoked after the checks but before the commit: KEY_REVOKED, nothing recorded', async () => {
    const chain = await newChain();
    beforeCommit(() => admin('POST', `/v1/agents/${chain.agentId}/revoke`, { kid: 'k1', reason: 'race' }));
    const { record, res } = await chain.submit(engineer);
    expect(`${res.status} ${res.body.error?.code}`).toBe('403 KEY_REVOKED');
    expect((await engineer('GET', `/v1/operations/${record.operation_id}`)).status).toBe(404);
  });

  it('an agent frozen after the checks but before the commit: AGENT_FROZEN, nothing recorded', async () => {
    const chain = await newChain();
    beforeCommit(() => admin('POST', `/v1/agents/${chain.agentId}/freeze`, { reason: 'race' }));
    const { record, res } = await chain.submit(engineer);
    expect(`${res.status} ${res.body.error?.code}`).toBe('403 AGENT_FROZEN');
    expect((await engineer('GET', `/v1/operations/${record.operation_id}`)).status).toBe(404);
  });

  it('a key added meanwhile does not disturb the submission', async () => {
    const chain = await newChain();
    beforeCommit(() => admin('POST', `/v1/agents/${chain.agentId}/keys`, keyBody(newKey('k2'), chain.orgId, chain.agentId)));
    expect((await chain.submit(engineer)).res.status).toBe(200);
  });

  it('a key added before every round\'s commit: 503 SERVICE_UNAVAILABLE with Retry-After, nothing recorded, the same record accepted after', async () => {
    const chain = await newChain();
    const original = dynamo().send.bind(dynamo());
    let added = 0;
    vi.spyOn(dynamo(), 'send').mockImplementation(async (command: Loose, ...rest: Loose[]) => {
      if (isSubmission(command) && added < 10) await admin('POST', `/v1/agents/${chain.agentId}/keys`, keyBody(newKey(`k-extra-${++added}`), chain.orgId, chain.agentId));
      return original(command, ...rest);
    });
    const record = chain.record();
    const res = await engineer('POST', '/v1/operations', record);
    expect(`${res.status} ${res.body.error?.code} ${res.headers.get('retry-after')}`).toBe('503 SERVICE_UNAVAILABLE 1');
    expect(added).toBe(4); // one key change per round
    expect((await engineer('GET', `/v1/operations/${record.operation_id}`)).status).toBe(404);
    vi.restoreAllMocks();
    expect((await engineer('POST', '/v1/operations', record)).status).toBe(200);
  });

  it('an agent deleted meanwhile: UNKNOWN_AGENT', async () => {
    const chain = await newChain();
    beforeCommit(() => admin('DELETE', `/v1/agents/${chain.agentId}`));
    expect((await chain.submit(engineer)).res.body.error.code).toBe('UNKNOWN_AGENT');
  });
});
