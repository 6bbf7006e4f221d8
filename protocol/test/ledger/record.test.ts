import { describe, expect, it } from 'vitest';
import {
  CanonicalizationError,
  GENESIS,
  OP_VERSION,
  ProtocolError,
  RECORD_FIELDS,
  b64uEncode,
  chainHash,
  generateKeyPair,
  payloadHash,
  privateKeyFromSeed,
  rawPublicKey,
  recordDigest,
  signRecord,
  signingInput,
  verifyRecordSignature,
  type OperationRecord,
  type UnsignedRecord,
} from '../../src/index.js';
import { hex, loadVectors } from '../vectors.js';

type RecordVectors = {
  genesis: string;
  agent: { kid: string; seed_hex: string; public_key: string };
  records: { record: OperationRecord; signing_input: string; record_digest: string; chain_hash: string; seq_no: number }[];
};

const vectors = loadVectors<RecordVectors>('records.json');
const agentKey = privateKeyFromSeed(hex(vectors.agent.seed_hex));

function without<T extends object>(obj: T, ...drop: string[]): T {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !drop.includes(k))) as T;
}

function unsign(record: OperationRecord): UnsignedRecord {
  return without(record, 'signature');
}

describe('records.json vectors', () => {
  it('GENESIS is b64u of 32 zero bytes and matches the vectors', () => {
    expect(GENESIS).toBe(vectors.genesis);
    expect(GENESIS).toBe(b64uEncode(new Uint8Array(32)));
  });

  it('the agent seed yields the listed public key', () => {
    expect(b64uEncode(rawPublicKey(agentKey))).toBe(vectors.agent.public_key);
  });

  it('RECORD_FIELDS are exactly the members of a vector record', () => {
    expect(RECORD_FIELDS).toHaveLength(15);
    for (const { record } of vectors.records) {
      expect([...Object.keys(record)].sort()).toEqual([...RECORD_FIELDS].sort());
      expect(record.op_version).toBe(OP_VERSION);
    }
  });

  it('records form one chain from GENESIS with seq_no 1, 2, ...', () => {
    expect(vectors.records.length).toBeGreaterThan(0);
    vectors.records.forEach((v, i) => {
      expect(v.seq_no).toBe(i + 1);
      expect(v.record.prev_chain_hash).toBe(i === 0 ? GENESIS : vectors.records[i - 1]!.chain_hash);
      expect(v.record.agent_pubkey_kid).toBe(vectors.agent.kid);
    });
  });

  for (const v of vectors.records) {
    describe(`seq_no ${v.seq_no} (${v.record.operation_type}, payload ${v.record.payload === null ? 'null' : typeof v.record.payload})`, () => {
      it('payload_hash', () => {
        expect(payloadHash(v.record.payload)).toBe(v.record.payload_hash);
      });
      it('signing_input', () => {
        expect(new TextDecoder().decode(signingInput(v.record))).toBe(v.signing_input);
        expect(signingInput(unsign(v.record))).toEqual(signingInput(v.record));
      });
      it('signature (Ed25519 is deterministic, so signing reproduces it)', () => {
        expect(signRecord(unsign(v.record), agentKey)).toEqual(v.record);
        expect(verifyRecordSignature(v.record, vectors.agent.public_key)).toBe(true);
      });
      it('record_digest', () => {
        expect(b64uEncode(recordDigest(v.record))).toBe(v.record_digest);
      });
      it('chain_hash', () => {
        expect(chainHash(v.record.prev_chain_hash, v.record)).toBe(v.chain_hash);
      });
      it('erasing the payload keeps signature, digest and chain hash', () => {
        const erased = { ...v.record, payload: null };
        expect(verifyRecordSignature(erased, vectors.agent.public_key)).toBe(true);
        expect(b64uEncode(recordDigest(erased))).toBe(v.record_digest);
        expect(chainHash(erased.prev_chain_hash, erased)).toBe(v.chain_hash);
      });
    });
  }
});

describe('tampering', () => {
  const v = vectors.records[0]!;
  const pk = vectors.agent.public_key;
  const changes: Partial<Record<keyof OperationRecord, unknown>> = {
    op_version: '1.1',
    operation_id: '01900000-0000-7000-8000-0000000000ff',
    org_id: 'org_other',
    agent_id: 'agent-other',
    issued_at: v.record.issued_at + 1,
    ttl_ms: v.record.ttl_ms + 1,
    nonce: 'different-nonce',
    operation_type: 'shell.exec2',
    subject: { ...v.record.subject, extra: true },
    action: { ...v.record.action, verb: 'other' },
    payload_hash: GENESIS,
    prev_chain_hash: vectors.records[1]!.chain_hash,
    agent_pubkey_kid: 'key-2',
  };
  for (const [field, value] of Object.entries(changes)) {
    it(`changing ${field} breaks the signature and the chain hash`, () => {
      const tampered: OperationRecord = { ...v.record, [field]: value };
      expect(verifyRecordSignature(tampered, pk)).toBe(false);
      expect(chainHash(v.record.prev_chain_hash, tampered)).not.toBe(v.chain_hash);
    });
  }
  it('changing the signature breaks verification and the chain hash', () => {
    const other = vectors.records[1]!.record.signature;
    const tampered = { ...v.record, signature: other };
    expect(verifyRecordSignature(tampered, pk)).toBe(false);
    expect(chainHash(v.record.prev_chain_hash, tampered)).not.toBe(v.chain_hash);
  });
  it('changing the payload leaves the signature intact but not the payload hash', () => {
    const tampered = { ...v.record, payload: { command: 'ls' } };
    expect(verifyRecordSignature(tampered, pk)).toBe(true);
    expect(payloadHash(tampered.payload)).not.toBe(v.record.payload_hash);
  });
  it('another key does not verify', () => {
    expect(verifyRecordSignature(v.record, generateKeyPair().publicKey)).toBe(false);
  });
  it('a malformed record or key gives false, not an exception', () => {
    expect(verifyRecordSignature({ ...v.record, signature: 'garbage' }, pk)).toBe(false);
    expect(verifyRecordSignature({ ...v.record, issued_at: NaN }, pk)).toBe(false);
    const missing = without(v.record, 'nonce');
    expect(verifyRecordSignature(missing, pk)).toBe(false);
    expect(verifyRecordSignature(v.record, 'not-a-key')).toBe(false);
    expect(verifyRecordSignature(null as unknown as OperationRecord, pk)).toBe(false);
  });
  it('a missing member is a canonicalization error, not a silent omission', () => {
    const missing = without(v.record, 'nonce');
    expect(() => signingInput(missing)).toThrow(CanonicalizationError);
    expect(() => recordDigest(missing)).toThrow(CanonicalizationError);
  });
  it('members outside docs/API.md §2.1 do not enter the protocol bytes', () => {
    const row = { ...v.record, seq_no: 1, chain_hash: v.chain_hash };
    expect(new TextDecoder().decode(signingInput(row))).toBe(v.signing_input);
    expect(b64uEncode(recordDigest(row))).toBe(v.record_digest);
  });
  it('chainHash rejects a malformed previous hash', () => {
    for (const prev of ['', 'AAAA', GENESIS + '=', GENESIS.slice(0, 42) + 'B', GENESIS + 'AAAA']) {
      expect(() => chainHash(prev, v.record)).toThrow(ProtocolError);
      expect(() => chainHash(prev, v.record)).toThrow(expect.objectContaining({ code: 'INVALID_HASH' }) as Error);
    }
  });
});

describe('round trip with a generated key', () => {
  it('signs, verifies and chains three records', () => {
    const { publicKey, privateKey } = generateKeyPair();
    const payloads: OperationRecord['payload'][] = [{ a: 1, nested: { list: [1, 'x', null] } }, 'text', null];
    let prev = GENESIS;
    const heads: string[] = [];
    payloads.forEach((payload, i) => {
      const unsigned: UnsignedRecord = {
        op_version: OP_VERSION,
        operation_id: `01900000-0000-7000-8000-00000000010${i}`,
        org_id: 'org_rt',
        agent_id: 'agent-rt',
        issued_at: 1767225600000 + i,
        ttl_ms: 60000,
        nonce: `nonce-${i}`,
        operation_type: 'test.run',
        subject: { kind: 'test' },
        action: { verb: 'run', i },
        payload,
        payload_hash: payloadHash(payload),
        prev_chain_hash: prev,
        agent_pubkey_kid: 'key-rt',
      };
      const record = signRecord(unsigned, privateKey);
      expect(record.signature).toMatch(/^[A-Za-z0-9_-]{86}$/);
      expect(verifyRecordSignature(record, publicKey)).toBe(true);
      expect(payloadHash(record.payload)).toBe(record.payload_hash);
      prev = chainHash(prev, record);
      expect(prev).toMatch(/^[A-Za-z0-9_-]{43}$/);
      heads.push(prev);
    });
    expect(new Set(heads).size).toBe(3);
  });
});
