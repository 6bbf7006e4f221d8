/**
 * verify's Merkle evidence (domain/epochs/inclusion.ts; docs/PROTOCOL.md, Verify endpoint) on
 * sealed fixture rows (sealing writes nothing to them): every member's proof verifies with `@agent-ledger/protocol` alone,
 * and the check answers false, never a proof that passes, when the row, the epoch or the
 * leaf list disagree.
 */
import { randomUUID } from 'node:crypto';
import { verifyInclusionProof } from '@agent-ledger/protocol';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { epochKeys } from '../../lambdas/store/epochs.js';
import { config } from '../../lambdas/config.js';
import { merkleEvidence, type SealedRow } from '../../lambdas/domain/epochs/inclusion.js';
import { runSealer } from '../../lambdas/domain/epochs/run-sealer.js';
import { dynamo, s3 } from '../../lambdas/store/clients.js';
import { epochsOf, fixtureOp, rawOperationRow, writeOperationRows } from '../support/epoch-fixtures.js';
import { useLedgerStack } from '../support/ledger-stack.js';
import { signer } from '../../lambdas/runtime/signer.js';

const E = 1_000;
const T = 1_700_000_000_000;

useLedgerStack({ env: { LEDGER_EPOCH_MS: '3600000' } });

/** Seals `count` fixture operations into one epoch of a fresh organization; returns their rows. */
async function sealedOrg(count: number, window: number): Promise<{ org: string; rows: SealedRow[] }> {
  const org = randomUUID();
  const ops = Array.from({ length: count }, (_, i) => fixtureOp(T + window * E + i));
  await writeOperationRows(org, ops);
  const report = await runSealer({
    now: T + (window + 1) * E + 100,
    epochMs: E,
    graceMs: 100,
    deadline: Date.now() + 60_000,
    leaseUntil: Date.now() + 120_000,
    holder: randomUUID(),
    settleMs: 0,
    tsa: undefined,
    signer: signer(),
  });
  expect(report.errors).toEqual([]);
  const rows = await Promise.all(ops.map((op) => rawOperationRow(org, op.operation_id)));
  return { org, rows: rows as unknown as SealedRow[] };
}

it('proves every member; the proofs verify with protocol/ alone against the committed epoch', async () => {
  const { org, rows } = await sealedOrg(13, 1);
  const [epoch] = await epochsOf(org);
  // Sealing wrote nothing to the rows: each operation's place is its window's epoch and its index in the leaf list.
  expect(rows.every((row) => row.epoch_id === undefined && row.leaf_index === undefined)).toBe(true);
  for (const [index, row] of rows.entries()) {
    const evidence = await merkleEvidence(row, E);
    expect(evidence?.merkle).toBe(true);
    expect(evidence?.proof).toMatchObject({ epoch_id: epoch!.epoch_id, leaf_index: index, tree_size: 13, root_hash: epoch!.root_hash });
    expect(verifyInclusionProof(row.chain_hash, evidence!.proof!, { root_hash: epoch!.root_hash, tree_size: epoch!.leaf_count })).toBe(true);
  }
});

it('has nothing to say before an epoch covers the operation', async () => {
  expect(await merkleEvidence({ org_id: randomUUID(), operation_id: 'x', chain_hash: fixtureOp(T).chain_hash, created_at: T }, E)).toBeUndefined();
});

it('answers false when the row names a leaf that is not its own', async () => {
  const { org, rows } = await sealedOrg(4, 3);
  const [epoch] = await epochsOf(org);
  const [first] = rows;
  // Rows an earlier version sealed name their epoch and leaf.
  expect((await merkleEvidence({ ...first!, epoch_id: epoch!.epoch_id, leaf_index: 0 }, E))?.merkle).toBe(true);
  expect((await merkleEvidence({ ...first!, epoch_id: epoch!.epoch_id, leaf_index: 1 }, E))?.merkle).toBe(false);
  expect(await merkleEvidence({ ...first!, epoch_id: epoch!.epoch_id, leaf_index: 99 }, E)).toEqual({ merkle: false });
  expect(await merkleEvidence({ ...first!, epoch_id: randomUUID(), leaf_index: 0 }, E)).toEqual({ merkle: false });
  // An operation its window's epoch does not hold is damaged evidence, not "not covered yet".
  expect(await merkleEvidence({ ...first!, operation_id: fixtureOp(T).operation_id }, E)).toEqual({ merkle: false });
});

it('answers false when the chain hash on the row is not the one sealed', async () => {
  const { rows } = await sealedOrg(3, 5);
  const evidence = await merkleEvidence({ ...rows[0]!, chain_hash: fixtureOp(T).chain_hash }, E);
  expect(evidence?.merkle).toBe(false);
});

it('answers false when the leaf list no longer hashes to the committed root', async () => {
  const { org, rows } = await sealedOrg(3, 7);
  const [epoch] = await epochsOf(org);
  await s3().send(new PutObjectCommand({ Bucket: config().anchorsBucket, Key: epoch!.store_epoch_key, Body: '{"tampered":true}' }));
  // A different root: the cached tree of the original list cannot answer for it.
  await dynamo().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: epochKeys.epoch(org, epoch!.start_time),
      UpdateExpression: 'SET root_hash = :root',
      ExpressionAttributeValues: { ':root': fixtureOp(T).chain_hash },
    }),
  );
  expect(await merkleEvidence(rows[0]!, E)).toEqual({ merkle: false });
});
