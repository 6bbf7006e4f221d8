// Request shapes of the ledger endpoints (docs/PROTOCOL.md "Operation record": exactly the 15
// members, safe integers, strict base64url of the right lengths; docs/API.md §4.3 register).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OperationRecord } from '@agent-ledger/protocol';
import { registerAgentBody, revokeBody } from '../../lambdas/routes/schemas/agents.js';
import { operationRecordSchema } from '../../lambdas/routes/schemas/operations.js';

const vectors = JSON.parse(readFileSync(new URL('../../protocol/test/vectors/records.json', import.meta.url), 'utf8')) as {
  agent: { kid: string; public_key: string };
  records: { record: OperationRecord }[];
};
const record = vectors.records[0]!.record;

function rejects(value: unknown): string {
  const result = operationRecordSchema.safeParse(value);
  expect(result.success).toBe(false);
  return result.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
}

describe('operation record schema', () => {
  it('accepts every docs/PROTOCOL.md vector record', () => {
    for (const { record: r } of vectors.records) expect(operationRecordSchema.parse(r)).toEqual(r);
  });

  it('rejects an unknown member and a missing one', () => {
    expect(rejects({ ...record, seq_no: 1 })).toMatch(/seq_no|Unrecognized/);
    const { nonce: _nonce, ...missing } = record;
    expect(rejects(missing)).toMatch(/^nonce/);
  });

  it.each([
    ['op_version', '1.1'],
    ['operation_id', '3b241101-e2bb-4255-8caf-4136c566a962'], // v4
    ['operation_id', '0190ABCD-0000-7000-8000-00000000000A'], // upper case
    ['issued_at', -1],
    ['issued_at', 1.5],
    ['issued_at', Number.MAX_SAFE_INTEGER + 2],
    ['ttl_ms', '60000'],
    ['ttl_ms', 86_400_001], // docs/PROTOCOL.md: at most 24 hours
    ['nonce', 'has space'],
    ['nonce', ''],
    ['operation_type', 'deploy'],
    ['operation_type', 'shell..exec'],
    ['subject', ['not', 'an', 'object']],
    ['action', null],
    ['payload', 42],
    ['payload_hash', record.payload_hash.slice(1)],
    ['payload_hash', `${record.payload_hash.slice(0, 42)}=`],
    ['prev_chain_hash', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB'], // non-canonical trailing bits
    ['signature', record.signature.slice(1)],
    ['signature', record.signature.replace(/.$/, '+')],
    ['agent_pubkey_kid', 'key#1'],
    ['agent_id', 'agent#x'],
  ])('rejects %s = %j', (field, value) => {
    expect(rejects({ ...record, [field]: value })).toContain(field);
  });

  it('accepts ttl_ms up to 24 hours', () => {
    expect(operationRecordSchema.safeParse({ ...record, ttl_ms: 86_400_000 }).success).toBe(true);
  });

  it('accepts a string or null payload', () => {
    expect(operationRecordSchema.safeParse({ ...record, payload: 'text' }).success).toBe(true);
    expect(operationRecordSchema.safeParse({ ...record, payload: null }).success).toBe(true);
  });
});

describe('register agent schema', () => {
  // The schema checks the proof's shape; its signature is checked by the domain (key-log.ts).
  const key = { kid: 'k1', public_key: vectors.agent.public_key, algorithm: 'ed25519', proof: { registered_at: 1, signature: 'A'.repeat(86) } };
  const body = { agent_id: 'agent-1', integration_type: 'claudecode', keys: [key] };

  it('accepts a minimal registration', () => {
    expect(registerAgentBody.safeParse(body).success).toBe(true);
  });

  it("accepts a key without a proof of possession (the original /v1 body); refuses a proof of null or with a signature that is not 64 bytes", () => {
    const { proof: _proof, ...bare } = key;
    expect(registerAgentBody.safeParse({ ...body, keys: [bare] }).success).toBe(true);
    expect(registerAgentBody.safeParse({ ...body, keys: [{ ...key, proof: null }] }).success).toBe(false);
    expect(registerAgentBody.safeParse({ ...body, keys: [{ ...key, proof: { registered_at: 1, signature: 'A'.repeat(43) } }] }).success).toBe(false);
  });

  it.each([
    ['a duplicate kid', { ...body, keys: [key, key] }],
    ['no keys', { ...body, keys: [] }],
    ['a 31-byte key', { ...body, keys: [{ ...key, public_key: key.public_key.slice(0, 42) }] }],
    ['a padded key', { ...body, keys: [{ ...key, public_key: `${key.public_key}=` }] }],
    ['another algorithm', { ...body, keys: [{ ...key, algorithm: 'rsa' }] }],
    ['an unknown integration type', { ...body, integration_type: 'vim' }],
    ['an agent_id with #', { ...body, agent_id: 'a#b' }],
    ['an unknown member', { ...body, colour: 'blue' }],
  ])('rejects %s', (_name, value) => {
    expect(registerAgentBody.safeParse(value).success).toBe(false);
  });

  it('revoke takes a reason, with or without kid', () => {
    expect(revokeBody.safeParse({ reason: 'gone' }).success).toBe(true);
    expect(revokeBody.safeParse({ kid: 'k1', reason: 'leaked' }).success).toBe(true);
    expect(revokeBody.safeParse({ kid: 'k1' }).success).toBe(false);
    expect(revokeBody.safeParse({ reason: '   ' }).success).toBe(false);
  });
});
