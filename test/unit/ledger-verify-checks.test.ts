// Verify's checks (docs/PROTOCOL.md "Verify endpoint") over stored rows built the way submission
// builds them, against the shared docs/PROTOCOL.md vectors; and what a cancelled commit means.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  canonicalBytes,
  ed25519Jwk,
  generateKeyPair,
  GENESIS,
  rawPublicKey,
  sign,
  verifyReceipt,
  b64uEncode,
  type OperationRecord,
} from '@agent-ledger/protocol';
import type { AgentItem, AgentKeyItem, OperationItem } from '../../lambdas/store/ledger-items.js';
import type { Signer } from '../../lambdas/domain/ports.js';
import { buildRow, storedOperationView } from '../../lambdas/domain/ledger/operation-row.js';
import { prepareRecord } from '../../lambdas/domain/ledger/prepared-record.js';
import { receiptFromRow, signReceipt, withReceipt } from '../../lambdas/domain/ledger/receipt-builder.js';
import { interpretCancellation } from '../../lambdas/domain/ledger/submit-operation.js';
import { chainCheck, receiptCheck, signatureCheck } from '../../lambdas/domain/ledger/verify-checks.js';

const vectors = JSON.parse(readFileSync(new URL('../../protocol/test/vectors/records.json', import.meta.url), 'utf8')) as {
  agent: { kid: string; public_key: string };
  records: { record: OperationRecord; chain_hash: string; seq_no: number }[];
};

function testSigner(): Signer {
  const { privateKey } = generateKeyPair();
  const jwk = ed25519Jwk(b64uEncode(rawPublicKey(privateKey)));
  return { kid: async () => jwk.kid, sign: async (m) => sign(privateKey, m), jwks: async () => [jwk], ping: async () => {} };
}

const key: AgentKeyItem = {
  kid: vectors.agent.kid, agent_id: 'agent-vectors', org_id: 'org_vectors', public_key: vectors.agent.public_key,
  algorithm: 'ed25519', status: 'active', created_at: 0, retired_at: null,
};

/** The vector chain as rows, each built on the previous one's head exactly as submission does. */
function vectorRows(): OperationItem[] {
  const rows: OperationItem[] = [];
  let agent: AgentItem = {
    agent_id: 'agent-vectors', org_id: 'org_vectors', display_name: 'v', responsible_entity: null, integration_type: 'sdk',
    status: 'active', created_at: 0, updated_at: 0, seq_no: 0, chain_hash: GENESIS, head_operation_id: null, keys_version: 0,
  };
  for (const { record } of vectors.records) {
    const row = buildRow(prepareRecord(record), {
      agent,
      key,
      receiptId: '01900000-0000-7000-8000-0000000000aa',
      receivedAt: record.issued_at + 5,
      queueMessageId: 'm-1',
      inlinePayload: true,
    });
    rows.push(row);
    agent = { ...agent, seq_no: row.seq_no, chain_hash: row.chain_hash, head_operation_id: row.operation_id };
  }
  return rows;
}

const payloadText = (record: OperationRecord) => new TextDecoder().decode(canonicalBytes(record.payload));

describe('rows built from the docs/PROTOCOL.md vectors', () => {
  const rows = vectorRows();

  it('carry the vectors’ seq_no and chain_hash, and expose exactly the docs/API.md §2.2 fields', () => {
    rows.forEach((row, i) => {
      expect(row.seq_no).toBe(vectors.records[i]!.seq_no);
      expect(row.chain_hash).toBe(vectors.records[i]!.chain_hash);
      // The payload kept in the row is the canonical bytes the payload_hash covers.
      expect(row.payload_json).toBe(payloadText(vectors.records[i]!.record));
    });
    expect(storedOperationView(rows[0]!).store_payload_key).toBe(`payloads/org_vectors/${rows[0]!.operation_id}/${rows[0]!.payload_hash}.json`);
    expect(Object.keys(storedOperationView(rows[0]!)).sort()).toEqual(
      ['operation_id', 'org_id', 'agent_id', 'seq_no', 'operation_type', 'issued_at', 'ttl_ms', 'nonce', 'subject', 'action',
        'payload_hash', 'prev_chain_hash', 'chain_hash', 'agent_pubkey_kid', 'signature', 'store_payload_key', 'created_at'].sort(),
    );
  });

  it('pass the signature and chain checks', () => {
    rows.forEach((row, i) => {
      expect(signatureCheck(row, key.public_key, { state: 'stored', text: payloadText(vectors.records[i]!.record) })).toBe(true);
      expect(chainCheck(row, i === 0 ? null : rows[i - 1]!)).toBe(true);
    });
  });

  it('signature: still checkable after the key item is gone, an erased payload is fine, a changed or destroyed one is not', () => {
    const [row] = rows;
    const erased = { state: 'erased', mark: { by: 'user_owner', at: 1, reason: 'leaked' } } as const;
    expect(signatureCheck(row!, null, erased)).toBe(true);
    expect(signatureCheck(row!, null, { state: 'stored', text: '{"command":"something else"}' })).toBe(false);
    // Neither stored nor erased: deleted in storage behind the service's back.
    expect(signatureCheck(row!, null, { state: 'missing' })).toBe(false);
    expect(signatureCheck(row!, generateKeyPair().publicKey, erased)).toBe(false); // key item disagrees with the row's copy
    expect(signatureCheck({ ...row!, subject: '{"id":"other"}' }, null, erased)).toBe(false);
    expect(signatureCheck({ ...row!, subject: 'not json' }, null, erased)).toBe(false);
  });

  it('chain: a changed row, a wrong predecessor or a missing one fails', () => {
    const [first, second, third] = rows;
    expect(chainCheck({ ...second!, action: '{"verb":"other"}' }, first!)).toBe(false);
    expect(chainCheck(third!, first!)).toBe(false);
    expect(chainCheck(second!, null)).toBe(false);
    expect(chainCheck({ ...first!, prev_chain_hash: second!.chain_hash }, null)).toBe(false);
    expect(chainCheck({ ...second!, chain_hash: first!.chain_hash }, first!)).toBe(false);
  });
});

describe('receipt check', () => {
  const rows = vectorRows();
  const row = rows[0]!;

  it('passes for the receipt built from the row, deterministically, and fails for anything else', async () => {
    const signer = testSigner();
    const jwks = await signer.jwks();
    const receipt = await signReceipt(signer, row);
    expect(await signReceipt(signer, row)).toEqual(receipt);
    expect(verifyReceipt(receipt, { keys: jwks })).toBe(true);
    expect(receiptCheck(row, receipt, jwks)).toBe(true);
    // Stored with the row, it reads back as the same receipt.
    expect(receiptFromRow(withReceipt(row, receipt))).toEqual(receipt);
    expect(receiptFromRow(row)).toBeNull();
    // A validly signed receipt that does not restate this row (another message id) is refused.
    expect(receiptCheck(row, await signReceipt(signer, { ...row, queue_message_id: 'm-2' }), jwks)).toBe(false);
    expect(receiptCheck(row, { ...receipt, seq_no: 2 }, jwks)).toBe(false);
    expect(receiptCheck(row, receipt, await testSigner().jwks())).toBe(false);
    expect(receiptCheck(row, null, jwks)).toBe(false);
    expect(receiptCheck({ ...row, queue_message_id: '' }, receipt, jwks)).toBe(false);
  });
});

describe('a cancelled commit (docs/PROTOCOL.md rules 2, 7, 8)', () => {
  const expected = { seqNo: 3, chainHash: 'H3', keysVersion: 1, activeWindow: 0 };
  const createdAt = 1_000;
  const base = { committed: false as const, operationExists: false, headFailed: false, agent: null, nonceUsed: false, conflict: false };
  const moved = { status: 'active' as const, chainHash: 'H4', seqNo: 4, keysVersion: 1, sealedUntil: undefined };
  const fenced = { status: 'active' as const, chainHash: 'H3', seqNo: 3, keysVersion: 1, sealedUntil: 2_000 };
  const code = (outcome: ReturnType<typeof interpretCancellation>) => (typeof outcome === 'string' ? outcome : outcome.code);

  it.each([
    ['the agent vanished', { headFailed: true, agent: null, nonceUsed: true }, 'UNKNOWN_AGENT'],
    ['the agent was revoked meanwhile (beats a used nonce)', { headFailed: true, agent: { ...moved, status: 'revoked' as const }, nonceUsed: true }, 'AGENT_REVOKED'],
    ['the agent was frozen meanwhile', { headFailed: true, agent: { ...moved, status: 'frozen' as const } }, 'AGENT_FROZEN'],
    ['a key changed meanwhile: re-check from step 2', { headFailed: true, agent: { ...moved, keysVersion: 2 }, nonceUsed: true }, 'again'],
    ['nonce used and head moved: rule 7 beats rule 8', { headFailed: true, agent: moved, nonceUsed: true }, 'REPLAY_DETECTED'],
    ['nonce used alone', { nonceUsed: true, operationExists: true }, 'REPLAY_DETECTED'],
    ['head moved: re-read to answer PREV_HASH_MISMATCH', { headFailed: true, agent: moved }, 'again'],
    ['a concurrent transaction collided', { conflict: true }, 'again'],
    ['only the operation_id exists', { operationExists: true }, 'VALIDATION_ERROR'],
    ['the head is as read but the window was sealed meanwhile: accepted again, now', { headFailed: true, agent: fenced }, 'restamp'],
    ['a frozen agent beats the fence', { headFailed: true, agent: { ...fenced, status: 'frozen' as const } }, 'AGENT_FROZEN'],
    ['the head moved as well as the fence: re-read', { headFailed: true, agent: { ...fenced, chainHash: 'H4' } }, 'again'],
  ])('%s', (_name, overrides, expectedCode) => {
    expect(code(interpretCancellation({ ...base, ...overrides }, expected, 'a1', createdAt))).toBe(expectedCode);
  });

  it('answers a duplicate operation_id with 409', () => {
    const outcome = interpretCancellation({ ...base, operationExists: true }, expected, 'a1', createdAt);
    expect(typeof outcome !== 'string' && outcome.status).toBe(409);
  });
});
