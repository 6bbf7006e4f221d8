/**
 * Epochs end to end on the local stack (docs/PROTOCOL.md, Merkle epochs): real submissions (signed records, POST
 * /v1/operations) while the stack's own timer runs the sealer every LEDGER_EPOCH_MS; then
 * GET /v1/epochs and GET /v1/epochs/:epoch_id (docs/API.md §4.7), the anchor of each epoch
 * checked by `openssl ts -verify`, and the inclusion proof of every operation from verify
 * checked with `@agent-ledger/protocol` alone (docs/PROTOCOL.md, Verify endpoint).
 */
import { randomUUID } from 'node:crypto';
import { b64uDecode, verifyInclusionProof, type InclusionProof } from '@agent-ledger/protocol';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { MemoryQueue } from '../../lambdas/adapters/local/memory-queue.js';
import type { EventMessage } from '../../lambdas/domain/events.js';
import { ROLES } from '../../lambdas/shared/roles.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { type Api } from '../support/http-client.js';
import { startOpensslTsa, type OpensslTsa } from '../support/openssl-tsa.js';
import { seedOrg, seedUser, type SeededUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import type { Epoch } from '../../lambdas/domain/epochs/epoch.js';


const EPOCH_MS = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let tsa: OpensslTsa;
beforeAll(async () => {
  tsa = await startOpensslTsa();
});
afterAll(() => tsa?.stop());
const stack = useLedgerStack(() => ({ env: { LEDGER_EPOCH_MS: String(EPOCH_MS), LEDGER_EPOCH_GRACE_MS: '200', LEDGER_TSA_URL: tsa.url } }));
let org: string;
let users: Record<string, SeededUser>;
let owner: Api;
const submitted: { operation_id: string; chain_hash: string }[] = [];
let sendSpy: MockInstance<MemoryQueue['send']>;

beforeAll(async () => {
  sendSpy = vi.spyOn(stack.queue, 'send');
  ({ orgId: org, users, api: { org_owner: owner } } = await stack.org(...ROLES));
});

async function epochsOf(api: Api): Promise<Epoch[]> {
  const res = await api<{ epochs: Epoch[] }>('GET', '/v1/epochs?limit=100');
  expect(res.status).toBe(200);
  return res.body.epochs;
}

/**
 * Polls until the sealer has covered `count` operations (the timer ticks every second). Idle,
 * that takes a few seconds; under the whole suite's load the same sealing has taken over 20 s,
 * so the wait allows 45 (the test allows 90).
 */
async function waitForSealed(count: number, timeoutMs = 45_000): Promise<Epoch[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const epochs = await epochsOf(owner);
    if (epochs.reduce((sum, epoch) => sum + epoch.leaf_count, 0) >= count) return epochs;
    if (Date.now() > deadline) throw new Error(`only ${JSON.stringify(epochs.map((e) => e.leaf_count))} sealed of ${count}`);
    await sleep(250);
  }
}

describe('sealing real submissions', () => {
  // Three windows of submissions, then their sealing: a minute is room for a machine slowed by other files.
  it('covers every accepted operation in exactly one epoch, with a proof that protocol/ alone verifies', { timeout: 90_000 }, async () => {
    const chains = await Promise.all(
      [0, 1, 2].map(async () => {
        const key = newKey();
        const agentId = uniqueAgentId('epoch');
        await registerAgent(owner, agentId, [key]);
        return new ClientChain(org, agentId, key);
      }),
    );
    // Three agents submit concurrently for about three windows while the timer seals.
    await Promise.all(
      chains.map(async (chain) => {
        for (let i = 0; i < 8; i++) {
          const { record, res } = await chain.submit(owner);
          expect(res.status).toBe(200);
          submitted.push({ operation_id: record.operation_id, chain_hash: res.body.receipt.chain_hash as string });
          await sleep(Math.random() * 300);
        }
      }),
    );

    // Submitted at the start of a window, verified at once: no epoch can cover it yet.
    while (Date.now() % EPOCH_MS > 300) await sleep(20);
    const { record, res } = await chains[0]!.submit(owner);
    submitted.push({ operation_id: record.operation_id, chain_hash: res.body.receipt.chain_hash as string });
    const early = await owner('POST', `/v1/operations/${record.operation_id}/verify`);
    expect(early.body).toEqual({ valid: true, checks: { signature: true, chain: true, receipt: true } });

    const epochs = await waitForSealed(submitted.length);
    expect(epochs.reduce((sum, epoch) => sum + epoch.leaf_count, 0)).toBe(submitted.length);
    const byId = new Map(epochs.map((epoch) => [epoch.epoch_id, epoch]));
    const seen = new Set<string>();
    for (const op of submitted) {
      const verified = await owner<{ valid: boolean; checks: Record<string, boolean>; proof: InclusionProof }>(
        'POST',
        `/v1/operations/${op.operation_id}/verify`,
      );
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ valid: true, checks: { signature: true, chain: true, receipt: true, merkle: true } });
      const { proof } = verified.body;
      const epoch = byId.get(proof.epoch_id)!;
      expect(epoch).toBeDefined();
      // The client trusts the epoch it read, not the proof's own claims about it.
      expect(verifyInclusionProof(op.chain_hash, proof, { epoch_id: epoch.epoch_id, root_hash: epoch.root_hash, tree_size: epoch.leaf_count })).toBe(true);
      seen.add(`${proof.epoch_id}#${proof.leaf_index}`);
    }
    expect(seen.size).toBe(submitted.length); // no two operations share a leaf, none is in two epochs
  });

  it('sends one epoch.created event per epoch with {epoch_id, start_time, end_time, root_hash, leaf_count}', async () => {
    const epochs = await epochsOf(owner);
    const events = sendSpy.mock.calls
      .map(([, message]) => message.body as EventMessage)
      .filter((body) => body.event === 'epoch.created' && body.org_id === org);
    expect(events.map((event) => event.data).sort((a, b) => Number(a.start_time) - Number(b.start_time))).toEqual(
      [...epochs]
        .reverse()
        .map(({ epoch_id, start_time, end_time, root_hash, leaf_count }) => ({ epoch_id, start_time, end_time, root_hash, leaf_count })),
    );
  });
});

describe('GET /v1/epochs', () => {
  it('lists newest first with docs/API.md §2.11 fields, paged by limit and cursor', async () => {
    const all = await epochsOf(owner);
    expect(all.length).toBeGreaterThan(1);
    expect(all.map((e) => e.start_time)).toEqual([...all.map((e) => e.start_time)].sort((a, b) => b - a));
    for (const epoch of all) {
      // docs/API.md §2.11, and the place of each epoch in the organization's append-only log (docs/CHECKPOINTS.md).
      expect(Object.keys(epoch).sort()).toEqual(
        ['created_at', 'end_time', 'epoch_id', 'leaf_count', 'org_id', 'root_hash', 'start_time', 'store_epoch_key', 'epoch_index', 'prev_root_hash', 'checkpoint'].sort(),
      );
      expect(epoch).toMatchObject({ org_id: org, end_time: epoch.start_time + EPOCH_MS });
    }
    const paged: Epoch[] = [];
    let cursor: string | undefined;
    do {
      const res = await owner<{ epochs: Epoch[]; cursor?: string }>('GET', `/v1/epochs?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.epochs).toHaveLength(1);
      paged.push(...res.body.epochs);
      cursor = res.body.cursor;
    } while (cursor);
    expect(paged).toEqual(all);
    const defaultPage = await owner<{ epochs: Epoch[]; cursor?: string }>('GET', '/v1/epochs');
    expect(defaultPage.body.epochs).toEqual(all.slice(0, 20));
  });

  it.each([['limit=0'], ['limit=101'], ['limit=ten'], ['cursor=bm90LWEtY3Vyc29y'], ['sort=asc']])('rejects %s with VALIDATION_ERROR', async (query) => {
    const res = await owner('GET', `/v1/epochs?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET /v1/epochs/:epoch_id', () => {
  it('returns the epoch and its RFC 3161 anchor, which openssl ts -verify accepts for the root', async () => {
    const [epoch] = await epochsOf(owner);
    const res = await owner<{ epoch: Epoch; anchor: { tsa_url: string; tsa_token: string; anchored_at: number } | null }>(
      'GET',
      `/v1/epochs/${epoch!.epoch_id}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.epoch).toEqual(epoch);
    expect(res.body.anchor).toMatchObject({ tsa_url: tsa.url, anchored_at: expect.any(Number) });
    await expect(tsa.verifyToken(Buffer.from(res.body.anchor!.tsa_token, 'base64'), b64uDecode(epoch!.root_hash))).resolves.toContain(
      'Verification: OK',
    );
  });

  it('is NOT_FOUND for an unknown id and VALIDATION_ERROR for a malformed one', async () => {
    expect((await owner('GET', `/v1/epochs/${randomUUID()}`)).status).toBe(404);
    const malformed = await owner('GET', '/v1/epochs/not-an-id');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('access (docs/API.md §4.7, §5)', () => {
  it.each(ROLES)('%s reads the epochs', async (role) => {
    const api = stack.api(users[role]!.token);
    const [epoch] = await epochsOf(api);
    expect((await api('GET', `/v1/epochs/${epoch!.epoch_id}`)).status).toBe(200);
  });

  it('needs a token', async () => {
    expect((await stack.api()('GET', '/v1/epochs')).status).toBe(401);
    expect((await stack.api()('GET', `/v1/epochs/${randomUUID()}`)).status).toBe(401);
  });

  it("keeps organizations apart: another organization sees none of these epochs and gets NOT_FOUND for one's id", async () => {
    const [epoch] = await epochsOf(owner);
    const stranger = stack.api((await seedUser(await seedOrg('Other'), 'org_owner')).token);
    expect(await epochsOf(stranger)).toEqual([]);
    const res = await stranger('GET', `/v1/epochs/${epoch!.epoch_id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});
