/**
 * RFC 3161 anchoring of epochs (docs/PROTOCOL.md, RFC 3161 anchor) with a real time-stamping
 * authority (`openssl ts -reply` behind HTTP): a new epoch's root is time-stamped and
 * `openssl ts -verify` accepts the stored token against the root; a failing or slow TSA
 * never blocks sealing, and unanchored epochs are retried on later runs, a bounded number
 * per run.
 */
import { randomUUID } from 'node:crypto';
import { b64uDecode } from '@agent-ledger/protocol';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { Rfc3161Client } from '../../lambdas/adapters/tsa/rfc3161-client.js';
import { runSealer, type SealerRunOptions } from '../../lambdas/domain/epochs/run-sealer.js';
import { epochsOf, fixtureOp, hasFollowUp, writeOperationRows } from '../support/epoch-fixtures.js';
import { startOpensslTsa, type OpensslTsa } from '../support/openssl-tsa.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { signer } from '../../lambdas/runtime/signer.js';

const E = 1_000;
const T = 1_700_000_000_000;

useLedgerStack({ env: { LEDGER_EPOCH_MS: '3600000' } });
let tsa: OpensslTsa;
beforeAll(async () => {
  tsa = await startOpensslTsa();
});
afterAll(() => tsa?.stop());
beforeEach(() => tsa.behave({ kind: 'ok' }));

function run(now: number, overrides: Partial<SealerRunOptions> = {}) {
  return runSealer({
    now,
    epochMs: E,
    graceMs: 100,
    deadline: Date.now() + 60_000,
    leaseUntil: Date.now() + 120_000,
    holder: randomUUID(),
    settleMs: 0,
    tsa: new Rfc3161Client(tsa.url),
    signer: signer(),
    ...overrides,
  });
}

it('anchors a new epoch; openssl ts -verify accepts the stored token against its root', async () => {
  const org = randomUUID();
  await writeOperationRows(org, [fixtureOp(T + 5), fixtureOp(T + 6)]);
  const report = await run(T + E + 100);
  expect(report).toMatchObject({ epochs_created: 1, anchored: 1, anchor_failures: 0, errors: [] });

  const [epoch] = await epochsOf(org);
  expect(epoch).toMatchObject({ tsa_url: tsa.url, anchor_wanted: true, anchored_at: expect.any(Number) });
  expect(epoch!.tsa_token).toMatch(/^[A-Za-z0-9+/]+=*$/); // base64, standard alphabet (docs/API.md §2.11)
  expect(Math.abs(epoch!.anchored_at! - Date.now())).toBeLessThan(5_000);
  const token = Buffer.from(epoch!.tsa_token!, 'base64');
  await expect(tsa.verifyToken(token, b64uDecode(epoch!.root_hash))).resolves.toContain('Verification: OK');
  expect(await hasFollowUp(org, T)).toBe(false);
});

it('seals with a failing TSA and anchors on a later run', async () => {
  const org = randomUUID();
  await writeOperationRows(org, [fixtureOp(T + 10 * E + 1)]);
  tsa.behave({ kind: 'error' });
  const failed = await run(T + 11 * E + 100);
  expect(failed).toMatchObject({ epochs_created: 1, anchored: 0, anchor_failures: 1, errors: [] });
  const [epoch] = await epochsOf(org);
  expect(epoch!.anchored_at).toBeUndefined();
  expect(await hasFollowUp(org, epoch!.start_time)).toBe(true);

  tsa.behave({ kind: 'ok' });
  const retried = await run(T + 11 * E + 100);
  expect(retried).toMatchObject({ epochs_created: 0, anchored: 1, errors: [] });
  const [anchored] = await epochsOf(org);
  await tsa.verifyToken(Buffer.from(anchored!.tsa_token!, 'base64'), b64uDecode(anchored!.root_hash));
  expect(await hasFollowUp(org, epoch!.start_time)).toBe(false);
});

it('seals with a slow TSA in about the client timeout, not the TSA delay', async () => {
  const org = randomUUID();
  await writeOperationRows(org, [fixtureOp(T + 20 * E + 1)]);
  // The TSA answers after 20 s; the run gives up after 300 ms. The bound leaves the sealing itself
  // seconds on a busy machine and still fails a run that waited for the answer.
  tsa.behave({ kind: 'delay', ms: 20_000 });
  const started = Date.now();
  const report = await run(T + 21 * E + 100, { tsa: new Rfc3161Client(tsa.url, { timeoutMs: 300 }) });
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(report).toMatchObject({ epochs_created: 1, anchored: 0, anchor_failures: 1, errors: [] });
  tsa.behave({ kind: 'ok' });
  expect(await run(T + 21 * E + 100)).toMatchObject({ anchored: 1 });
});

it('retries a bounded number of unanchored epochs per run, and stops asking a TSA that keeps failing', async () => {
  const org = randomUUID();
  await writeOperationRows(org, Array.from({ length: 5 }, (_, i) => fixtureOp(T + (30 + i) * E + 1)));
  tsa.behave({ kind: 'error' });
  let asked = tsa.requests();
  const down = await run(T + 35 * E + 100);
  expect(down.epochs_created).toBe(5);
  // The run's first request failed: the TSA counts as down, the other four epochs wait.
  expect(tsa.requests() - asked).toBe(1);
  expect(down).toMatchObject({ anchored: 0, anchor_failures: 1, errors: [] });

  tsa.behave({ kind: 'ok' });
  asked = tsa.requests();
  expect(await run(T + 35 * E + 100, { anchorRetries: 3 })).toMatchObject({ anchored: 3 });
  expect(tsa.requests() - asked).toBe(3);
  expect(await run(T + 35 * E + 100, { anchorRetries: 3 })).toMatchObject({ anchored: 2 });
  const epochs = await epochsOf(org);
  expect(epochs.every((epoch) => epoch.anchored_at !== undefined)).toBe(true);
  // The oldest windows were retried first.
  expect([...epochs].sort((a, b) => a.anchored_at! - b.anchored_at!).map((e) => e.start_time).slice(0, 3).sort()).toEqual(
    epochs.slice(0, 3).map((e) => e.start_time),
  );
});

it('does not time-stamp when no TSA is configured', async () => {
  const org = randomUUID();
  await writeOperationRows(org, [fixtureOp(T + 40 * E + 1)]);
  const asked = tsa.requests();
  expect(await run(T + 41 * E + 100, { tsa: undefined })).toMatchObject({ epochs_created: 1, anchored: 0 });
  const [epoch] = await epochsOf(org);
  expect(epoch).toMatchObject({ anchor_wanted: false });
  expect(epoch!.tsa_token).toBeUndefined();
  expect(tsa.requests()).toBe(asked);
  expect(await hasFollowUp(org, epoch!.start_time)).toBe(false);
});
