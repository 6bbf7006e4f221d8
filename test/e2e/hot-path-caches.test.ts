/**
 * How fast changes reach submissions on a process whose caches are warm (docs/COST.md,
 * Caches; domain/ledger/submission-state.ts, domain/auth/caller-lookup.ts):
 *
 * - a frozen agent, a revoked key: at the very next submission, although this process holds
 *   the agent's chain head from its last commit and uses it without a read for a record that
 *   builds on it (domain/ledger/submission-state.ts): the commit is conditioned on the
 *   status and keys_version the cached head has, fails, and the answer is made on a fresh
 *   read (every key change bumps keys_version);
 * - a head another process moved: the record on the cached (stale) head gets the answer a
 *   fresh read gives (PREV_HASH_MISMATCH, or REPLAY_DETECTED for a used nonce), nothing
 *   written, and the record on the real head is accepted;
 * - an API token of a member removed or demoted: within LEDGER_CALLER_CACHE_MS on a process
 *   that did not make the change itself, at once on the one that did;
 * - a rotated token: at the end of its grace period, to the second.
 *
 * The other process is played by dropping this process's own invalidation
 * (forgetCachedCallers), which is exactly what another Lambda container does not receive.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as callerLookup from '../../lambdas/domain/auth/caller-lookup.js';
import { config } from '../../lambdas/config.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { readAgent } from '../../lambdas/store/agents.js';
import { ledgerKeys } from '../../lambdas/store/ledger-items.js';
import { seedOperations } from '../support/operation-seed.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import type { Api } from '../support/http-client.js';
import { seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const CACHE_MS = 1_500;
const stack = useLedgerStack({ env: { LEDGER_CALLER_CACHE_MS: String(CACHE_MS), LEDGER_TOKEN_GRACE_SECONDS: '3', LEDGER_RATE_LIMIT_RPS: '1000' } });
let orgId: string;
let admin: Api;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  ({ orgId, api: { org_owner: admin } } = await stack.org('org_owner'));
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A refused caller: no longer authenticated (401), or no longer in the organization's roles (403). */
const refused = (status: number) => expect([401, 403]).toContain(status);

async function agentFor(api: Api): Promise<ClientChain> {
  const agentId = uniqueAgentId('cache');
  const key = newKey('k1');
  await registerAgent(admin, agentId, [key, newKey('k2')]);
  const chain = new ClientChain(orgId, agentId, key);
  // Warm every cache of the submission path.
  expect((await chain.submit(api)).res.status).toBe(200);
  return chain;
}

describe('agent state: at the very next submission', () => {
  it('a frozen agent is refused at once, and accepted again at once after unfreezing', async () => {
    const chain = await agentFor(admin);
    expect((await admin('POST', `/v1/agents/${chain.agentId}/freeze`, { reason: 'incident' })).status).toBe(200);
    expect((await chain.submit(admin)).res.body.error.code).toBe('AGENT_FROZEN');
    expect((await admin('POST', `/v1/agents/${chain.agentId}/unfreeze`, { reason: 'resolved' })).status).toBe(200);
    expect((await chain.submit(admin)).res.status).toBe(200);
  });

  it('a revoked key is refused at once, although the key was cached', async () => {
    const chain = await agentFor(admin);
    expect((await admin('POST', `/v1/agents/${chain.agentId}/revoke`, { kid: 'k1', reason: 'leaked' })).status).toBe(200);
    const { res } = await chain.submit(admin);
    expect(`${res.status} ${res.body.error?.code}`).toBe('403 KEY_REVOKED');
  });
});

/**
 * The table requests of one submission on `chain`'s agent item, in order: 'commit' (the
 * transaction) or 'read' (a strongly consistent read of the agent). A submission that used
 * this process's cached head commits before it reads anything.
 */
async function agentRequests(chain: ClientChain, submit: () => Promise<unknown>): Promise<string[]> {
  const send = vi.spyOn(dynamo(), 'send');
  await submit();
  const agentKey = ledgerKeys.agent(orgId, chain.agentId);
  const requests = send.mock.calls.flatMap(([command]) => {
    if (command instanceof TransactWriteCommand) return command.input.TransactItems?.some((item) => item.Update?.Key?.sk === agentKey.sk) ? ['commit'] : [];
    const gets = command instanceof GetCommand ? [command.input.Key] : ((command.input as { TransactItems?: { Get?: { Key?: Record<string, unknown> } }[] }).TransactItems ?? []).map((item) => item.Get?.Key);
    return gets.some((key) => key?.pk === agentKey.pk && key?.sk === agentKey.sk) ? ['read'] : [];
  });
  send.mockRestore();
  return requests;
}

describe('a chain head this process cached, changed elsewhere', () => {
  it('another process advanced the head: the record on the stale head is PREV_HASH_MISMATCH, nothing written; the one on the new head is accepted', async () => {
    const chain = await agentFor(admin);
    // Another writer moves the head past what this process cached (rows as a submission stores them).
    const [moved] = await seedOperations(orgId, [{ agent: { agentId: chain.agentId, key: chain.key }, createdAt: Date.now() }]);
    const stale = chain.record();
    let res: Awaited<ReturnType<ClientChain['submitRecord']>> | undefined;
    // The cached head is used (the commit comes first), then the answer is made on a fresh read.
    expect(await agentRequests(chain, async () => (res = await chain.submitRecord(admin, stale)))).toEqual(['commit', 'read']);
    expect(`${res?.status} ${res?.body.error?.code}`).toBe('400 PREV_HASH_MISMATCH');
    expect((await readAgent(orgId, chain.agentId))?.seq_no).toBe(2);
    // The client that learned the new head goes on from it.
    chain.head = moved!.chain_hash;
    chain.seqNo = 2;
    const next = await chain.submit(admin);
    expect(next.res.status).toBe(200);
    expect(next.res.body.receipt.seq_no).toBe(3);
  });

  it('another process advanced the head with the same nonce: REPLAY_DETECTED, as a fresh read answers', async () => {
    const chain = await agentFor(admin);
    const replayed = chain.record();
    // The other process committed this very record: the head moved and the nonce is used.
    await dynamo().send(
      new UpdateCommand({ TableName: config().tableName, Key: ledgerKeys.agent(orgId, chain.agentId), UpdateExpression: 'SET chain_hash = :h', ExpressionAttributeValues: { ':h': 'moved-elsewhere' } }),
    );
    await dynamo().send(
      new TransactWriteCommand({ TransactItems: [{ Put: { TableName: config().tableName, Item: { ...ledgerKeys.nonce(orgId, chain.agentId, replayed.nonce), type: 'nonce', operation_id: replayed.operation_id } } }] }),
    );
    const res = await chain.submitRecord(admin, replayed);
    expect(`${res.status} ${res.body.error?.code}`).toBe('400 REPLAY_DETECTED');
  });

  it('frozen by another process after the head was cached: AGENT_FROZEN at once, nothing written', async () => {
    const chain = await agentFor(admin);
    // Straight in the table, as another process's freeze leaves it: nothing here is told.
    await dynamo().send(
      new UpdateCommand({ TableName: config().tableName, Key: ledgerKeys.agent(orgId, chain.agentId), UpdateExpression: 'SET #s = :f', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':f': 'frozen' } }),
    );
    let res: Awaited<ReturnType<ClientChain['submitRecord']>> | undefined;
    const record = chain.record();
    expect(await agentRequests(chain, async () => (res = await chain.submitRecord(admin, record)))).toContain('commit');
    expect(`${res?.status} ${res?.body.error?.code}`).toBe('403 AGENT_FROZEN');
    expect((await readAgent(orgId, chain.agentId))?.seq_no).toBe(1);
  });

  it('key revoked by another process after the head and key were cached: KEY_REVOKED at once, nothing written', async () => {
    const chain = await agentFor(admin);
    const before = await readAgent(orgId, chain.agentId);
    // As a revocation leaves the items: the key's status, and keys_version bumped on the agent.
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: { TableName: config().tableName, Key: ledgerKeys.key(orgId, chain.agentId, 'k1'), UpdateExpression: 'SET #s = :r', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':r': 'revoked' } } },
          { Update: { TableName: config().tableName, Key: ledgerKeys.agent(orgId, chain.agentId), UpdateExpression: 'SET keys_version = :v', ExpressionAttributeValues: { ':v': (before?.keys_version ?? 0) + 1 } } },
        ],
      }),
    );
    const { res } = await chain.submit(admin);
    expect(`${res.status} ${res.body.error?.code}`).toBe('403 KEY_REVOKED');
    expect((await readAgent(orgId, chain.agentId))?.seq_no).toBe(1);
  });
});

describe('API tokens: within LEDGER_CALLER_CACHE_MS', () => {
  it('a removed member’s token: refused at once by the process that removed them, within the cache lifetime by another', async () => {
    const member = await seedUser(orgId, 'integration_engineer');
    const api = stack.api(member.token);
    const chain = await agentFor(api);
    // Another process: it never hears of the removal.
    vi.spyOn(callerLookup, 'forgetCachedCallers').mockImplementation(() => {});
    expect((await admin('DELETE', `/v1/members/${member.userId}`)).status).toBe(200);
    const removedAt = Date.now();
    const early = await chain.submit(api);
    // Still acting on what it read before the removal (the cache is warm)...
    if (Date.now() - removedAt < CACHE_MS - 200) expect(early.res.status).toBe(200);
    // ...but never past the cache lifetime.
    await sleep(Math.max(0, removedAt + CACHE_MS + 50 - Date.now()));
    refused((await chain.submit(api)).res.status);
    vi.restoreAllMocks();

    // The process that makes the change drops its entries at once.
    const other = await seedUser(orgId, 'integration_engineer');
    const otherApi = stack.api(other.token);
    const otherChain = await agentFor(otherApi);
    expect((await admin('PATCH', `/v1/members/${other.userId}`, { role: 'readonly_investigator' })).status).toBe(200);
    refused((await otherChain.submit(otherApi)).res.status);
  });

  it('a rotated token works through its grace period and stops at its end, cached or not', async () => {
    const member = await seedUser(orgId, 'integration_engineer');
    const chain = await agentFor(stack.api(member.token));
    const rotated = await stack.call('POST', '/v1/auth/rotate', { token: member.token });
    expect(rotated.status).toBe(200);
    expect((await chain.submit(stack.api(member.token))).res.status).toBe(200);
    await sleep(rotated.json.previous_token_grace_until * 1000 - Date.now() + 50);
    expect((await chain.submit(stack.api(member.token))).res.status).toBe(401);
    expect((await chain.submit(stack.api(rotated.json.token))).res.status).toBe(200);
  });
});
