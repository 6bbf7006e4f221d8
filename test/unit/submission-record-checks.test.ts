// The pure submission checks (docs/PROTOCOL.md "Submission check order", steps 2-6), their
// boundaries, and the order in which they fire when several fail at once.
import { describe, expect, it } from 'vitest';
import { GENESIS, generateKeyPair, OP_VERSION, payloadHash, signRecord, type OperationRecord } from '@agent-ledger/protocol';
import type { AgentItem, AgentKeyItem } from '../../lambdas/store/ledger-items.js';
import { LedgerError } from '../../lambdas/shared/errors.js';
import { MAX_DESCRIPTOR_BYTES, prepareRecord } from '../../lambdas/domain/ledger/prepared-record.js';
import {
  checkAgent,
  checkFreshness,
  checkIntegrity,
  checkKey,
  checkPayloadSize,
  MAX_CLOCK_SKEW_MS,
} from '../../lambdas/domain/ledger/record-checks.js';
import { uuidv7 } from '../../lambdas/domain/ledger/uuidv7.js';

const NOW = 1_800_000_000_000;
const agentKey = generateKeyPair();
const otherKey = generateKeyPair();

const agent = (status: AgentItem['status'] = 'active'): AgentItem => ({
  agent_id: 'a1', org_id: 'o1', display_name: 'a1', responsible_entity: null, integration_type: 'sdk', status,
  created_at: 0, updated_at: 0, seq_no: 0, chain_hash: GENESIS, head_operation_id: null, keys_version: 0,
});
const key = (status: AgentKeyItem['status'] = 'active', publicKey = agentKey.publicKey): AgentKeyItem => ({
  kid: 'k1', agent_id: 'a1', org_id: 'o1', public_key: publicKey, algorithm: 'ed25519', status, created_at: 0, retired_at: null,
});

function record(overrides: Partial<OperationRecord> = {}, signWith = agentKey.privateKey): OperationRecord {
  const payload = overrides.payload === undefined ? { cmd: 'ls' } : overrides.payload;
  const unsigned = {
    op_version: OP_VERSION, operation_id: uuidv7(NOW), org_id: 'o1', agent_id: 'a1', issued_at: NOW - 1000, ttl_ms: 60_000,
    nonce: 'n-1', operation_type: 'shell.exec', subject: { id: 'repo' }, action: { verb: 'exec' }, payload,
    payload_hash: payloadHash(payload), prev_chain_hash: GENESIS, agent_pubkey_kid: 'k1', ...overrides,
  };
  delete (unsigned as Partial<OperationRecord>).signature;
  return signRecord(unsigned, signWith);
}

/** Steps 2-6 exactly as submit-operation.ts runs them. */
function firstFailure(input: { agent: AgentItem | null; visible?: boolean; key: AgentKeyItem | null; record: OperationRecord; max?: number }): string {
  try {
    const prepared = prepareRecord(input.record);
    checkAgent(input.agent, input.visible ?? true, 'a1');
    checkKey(input.key, 'k1');
    checkPayloadSize(prepared, input.max ?? 1024);
    checkIntegrity(prepared, input.key);
    checkFreshness(prepared, NOW);
    return 'OK';
  } catch (error) {
    if (error instanceof LedgerError) return error.code;
    throw error;
  }
}

describe('single checks', () => {
  it('accepts a good record', () => {
    expect(firstFailure({ agent: agent(), key: key(), record: record() })).toBe('OK');
  });

  it.each([
    ['a missing agent', { agent: null }, 'UNKNOWN_AGENT'],
    ['an agent the caller may not see', { visible: false }, 'UNKNOWN_AGENT'],
    ['a revoked agent', { agent: agent('revoked') }, 'AGENT_REVOKED'],
    ['a frozen agent', { agent: agent('frozen') }, 'AGENT_FROZEN'],
    ['an unknown kid', { key: null }, 'INVALID_SIGNATURE'],
    ['a revoked key', { key: key('revoked') }, 'KEY_REVOKED'],
    ['a retired key', { key: key('retired') }, 'KEY_RETIRED'],
    ['a signature by another key', { record: record({}, otherKey.privateKey) }, 'INVALID_SIGNATURE'],
    ['a payload that does not hash to payload_hash', { record: { ...record(), payload: { cmd: 'rm' } } }, 'INVALID_SIGNATURE'],
    ['a tampered signed member', { record: { ...record(), operation_type: 'shell.other' } }, 'INVALID_SIGNATURE'],
  ])('rejects %s', (_name, overrides, code) => {
    expect(firstFailure({ agent: agent(), key: key(), record: record(), ...overrides })).toBe(code);
  });

  it('limits the canonical payload, inclusive', () => {
    // JCS of a string is the string in quotes: 1022 characters are 1024 bytes.
    expect(firstFailure({ agent: agent(), key: key(), record: record({ payload: 'x'.repeat(1022) }) })).toBe('OK');
    expect(firstFailure({ agent: agent(), key: key(), record: record({ payload: 'x'.repeat(1023) }) })).toBe('PAYLOAD_TOO_LARGE');
    // Canonical, not as sent: whitespace the client added does not count, multi-byte UTF-8 does.
    expect(firstFailure({ agent: agent(), key: key(), record: record({ payload: 'é'.repeat(511) }) })).toBe('OK');
    expect(firstFailure({ agent: agent(), key: key(), record: record({ payload: 'é'.repeat(512) }) })).toBe('PAYLOAD_TOO_LARGE');
  });

  it('expires strictly after issued_at + ttl_ms', () => {
    expect(firstFailure({ agent: agent(), key: key(), record: record({ issued_at: NOW - 60_000, ttl_ms: 60_000 }) })).toBe('OK');
    expect(firstFailure({ agent: agent(), key: key(), record: record({ issued_at: NOW - 60_001, ttl_ms: 60_000 }) })).toBe('TTL_EXPIRED');
    expect(firstFailure({ agent: agent(), key: key(), record: record({ issued_at: NOW, ttl_ms: 0 }) })).toBe('OK');
  });

  it('allows issued_at up to 5 minutes ahead of the server clock', () => {
    expect(firstFailure({ agent: agent(), key: key(), record: record({ issued_at: NOW + MAX_CLOCK_SKEW_MS }) })).toBe('OK');
    expect(firstFailure({ agent: agent(), key: key(), record: record({ issued_at: NOW + MAX_CLOCK_SKEW_MS + 1 }) })).toBe('VALIDATION_ERROR');
  });
});

describe('check order when two rules fail (docs/PROTOCOL.md)', () => {
  const expired = { issued_at: NOW - 120_000, ttl_ms: 1000 };
  it.each([
    ['unknown agent beats a bad signature', { agent: null, record: record({}, otherKey.privateKey) }, 'UNKNOWN_AGENT'],
    ['revoked agent beats revoked key', { agent: agent('revoked'), key: key('revoked') }, 'AGENT_REVOKED'],
    ['frozen agent beats unknown kid', { agent: agent('frozen'), key: null }, 'AGENT_FROZEN'],
    ['unknown kid beats an oversized payload', { key: null, record: record({ payload: 'x'.repeat(5000) }) }, 'INVALID_SIGNATURE'],
    ['revoked key beats an expired record', { key: key('revoked'), record: record(expired) }, 'KEY_REVOKED'],
    ['retired key beats a bad signature', { key: key('retired'), record: record({}, otherKey.privateKey) }, 'KEY_RETIRED'],
    ['oversized payload beats a payload hash mismatch', { record: { ...record({ payload: 'x'.repeat(5000) }), payload_hash: payloadHash(null) } }, 'PAYLOAD_TOO_LARGE'],
    ['bad signature beats an expired record', { record: record(expired, otherKey.privateKey) }, 'INVALID_SIGNATURE'],
    ['expired record (TTL) with issued_at far in the past is TTL_EXPIRED, not VALIDATION_ERROR', { record: record(expired) }, 'TTL_EXPIRED'],
  ])('%s', (_name, overrides, code) => {
    expect(firstFailure({ agent: agent(), key: key(), record: record(), ...overrides })).toBe(code);
  });
});

describe('canonical preparation (step 1)', () => {
  it('rejects values RFC 8785 cannot represent as VALIDATION_ERROR', () => {
    const lone = { ...record(), subject: { id: '\ud800' } };
    expect(() => prepareRecord(lone)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });

  it('bounds subject and action, which live in the table row', () => {
    const big = { ...record(), action: { blob: 'x'.repeat(MAX_DESCRIPTOR_BYTES) } };
    expect(() => prepareRecord(big)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/body\.action/) }));
  });

  it('stores subject and action as canonical JSON strings (docs/API.md §2.2)', () => {
    const prepared = prepareRecord(record({ subject: { b: 1, a: [true] } }));
    expect(prepared.subjectJson).toBe('{"a":[true],"b":1}');
    expect(prepared.payloadDigest).toBe(prepared.record.payload_hash);
  });
});

describe('uuidv7', () => {
  it('is an RFC 9562 version 7 UUID carrying the time', () => {
    const id = uuidv7(NOW);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(NOW);
    expect(uuidv7(NOW) < uuidv7(NOW + 1)).toBe(true);
    expect(new Set(Array.from({ length: 1000 }, () => uuidv7(NOW))).size).toBe(1000);
  });
});
