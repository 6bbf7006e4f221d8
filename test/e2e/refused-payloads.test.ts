/**
 * Refused submissions take up no storage (docs/PROTOCOL.md "Submission check order"; docs/ARCHITECTURE.md:
 * the payload object is written before the transaction): the payload is written only after
 * the record passed every check up to the transaction. The attack: send large payloads that
 * are certain to be refused (unknown agent, bad signature, wrong key, expired, replayed, off
 * the chain) and watch the bucket fill.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { testS3Client } from '../support/aws-clients.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../support/ledger-fixtures.js';
import { type Api } from '../support/http-client.js';
import { seedOrg, seedUser } from '../support/seed-identity.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
let orgId: string;
let api: Api;

beforeAll(async () => {
  orgId = await seedOrg();
  api = stack.api((await seedUser(orgId, 'org_owner')).token);
});

async function storedPayloads(): Promise<string[]> {
  const s3 = testS3Client();
  try {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: stack.dataBucket, Prefix: `payloads/${orgId}/` }));
    return (listed.Contents ?? []).map((object) => object.Key!);
  } finally {
    s3.destroy();
  }
}

describe('payloads of refused submissions', () => {
  it('are never written; an accepted one is', async () => {
    const big = { blob: 'x'.repeat(200 * 1024) };
    const agentId = uniqueAgentId('payloads');
    const key = newKey('k1');
    await registerAgent(api, agentId, [key]);
    const chain = new ClientChain(orgId, agentId, key);
    // Above LEDGER_INLINE_PAYLOAD_BYTES (1024 by default), so it is an object rather than part of the row.
    const accepted = await chain.submit(api, { payload: { stored: 'y'.repeat(2048) } });
    expect(accepted.res.status).toBe(200);

    const refused = [
      ['UNKNOWN_AGENT', new ClientChain(orgId, uniqueAgentId('ghost'), key).record({ payload: big })],
      ['INVALID_SIGNATURE', chain.record({ payload: big, after: { signature: accepted.record.signature } })],
      ['INVALID_SIGNATURE', chain.record({ payload: big, key: newKey('k9') })],
      ['TTL_EXPIRED', chain.record({ payload: big, fields: { issued_at: Date.now() - 120_000, ttl_ms: 1_000 } })],
      ['REPLAY_DETECTED', chain.record({ payload: big, fields: { nonce: accepted.record.nonce, prev_chain_hash: 'A'.repeat(43) } })],
      ['PREV_HASH_MISMATCH', chain.record({ payload: big, fields: { prev_chain_hash: 'A'.repeat(43) } })],
    ] as const;
    for (const [code, record] of refused) {
      const res = await api('POST', '/v1/operations', record);
      expect(res.body.error?.code, code).toBe(code);
    }
    expect(await storedPayloads()).toEqual([expect.stringContaining(`payloads/${orgId}/${accepted.record.operation_id}/`)]);

    await api('POST', `/v1/agents/${agentId}/freeze`, { reason: 'test' });
    expect((await api('POST', '/v1/operations', chain.record({ payload: big }))).body.error.code).toBe('AGENT_FROZEN');
    expect(await storedPayloads()).toHaveLength(1);
  });
});
