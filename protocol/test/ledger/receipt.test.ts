import { describe, expect, it } from 'vitest';
import {
  ProtocolError,
  RECEIPT_FIELDS,
  RECEIPT_VERSION,
  b64uEncode,
  ed25519Jwk,
  finishReceipt,
  generateKeyPair,
  privateKeyFromSeed,
  rawPublicKey,
  receiptHash,
  receiptSigningInput,
  sign,
  verifyReceipt,
  type Jwk,
  type Receipt,
  type UnsignedReceipt,
} from '../../src/index.js';
import { hex, loadVectors } from '../vectors.js';

type ReceiptVectors = { service: { seed_hex: string; jwk: Jwk }; receipt: Receipt };
type RecordVectors = { records: { chain_hash: string; seq_no: number; record: { operation_id: string } }[] };

const { service, receipt } = loadVectors<ReceiptVectors>('receipt.json');
const serviceKey = privateKeyFromSeed(hex(service.seed_hex));
const jwks = { keys: [service.jwk] };

function unsignedOf(r: Receipt): UnsignedReceipt {
  const drop = ['receipt_hash', 'service_kid', 'service_signature'];
  return Object.fromEntries(Object.entries(r).filter(([k]) => !drop.includes(k))) as UnsignedReceipt;
}

describe('receipt.json vectors', () => {
  it('the service seed yields the JWK x', () => {
    expect(b64uEncode(rawPublicKey(serviceKey))).toBe(service.jwk.x);
  });
  it('receipt has exactly the docs/API.md §2.3 members', () => {
    expect(Object.keys(receipt).sort()).toEqual([...RECEIPT_FIELDS].sort());
    expect(receipt.receipt_version).toBe(RECEIPT_VERSION);
  });
  it('receipt_hash', () => {
    expect(receiptHash(receipt)).toBe(receipt.receipt_hash);
    expect(receiptHash(unsignedOf(receipt))).toBe(receipt.receipt_hash);
  });
  it('service_kid is the JWK thumbprint', () => {
    expect(receipt.service_kid).toBe(service.jwk.kid);
    expect(ed25519Jwk(service.jwk.x!).kid).toBe(receipt.service_kid);
  });
  it('service_signature is reproduced over the 32 hash bytes', () => {
    const input = receiptSigningInput(receipt.receipt_hash);
    expect(input.byteLength).toBe(32);
    expect(b64uEncode(sign(serviceKey, input))).toBe(receipt.service_signature);
  });
  it('finishReceipt rebuilds the vector receipt', () => {
    const unsigned = unsignedOf(receipt);
    const sig = sign(serviceKey, receiptSigningInput(receiptHash(unsigned)));
    expect(finishReceipt(unsigned, service.jwk.kid!, sig)).toEqual(receipt);
  });
  it('verifyReceipt accepts it', () => {
    expect(verifyReceipt(receipt, jwks)).toBe(true);
  });
  it('acknowledges the first record of records.json', () => {
    const records = loadVectors<RecordVectors>('records.json').records;
    const first = records.find((r) => r.record.operation_id === receipt.operation_id);
    expect(first).toBeDefined();
    expect(receipt.chain_hash).toBe(first!.chain_hash);
    expect(receipt.seq_no).toBe(first!.seq_no);
  });
});

describe('verifyReceipt rejects', () => {
  const changes: Partial<Record<keyof Receipt, unknown>> = {
    receipt_version: '1.1',
    receipt_id: '01900000-0000-7000-8000-0000000000ab',
    operation_id: '01900000-0000-7000-8000-000000000002',
    org_id: 'org_other',
    agent_id: 'agent-other',
    server_received_at: receipt.server_received_at + 1,
    seq_no: 2,
    chain_hash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    queue_message_id: 'other',
    receipt_hash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    service_kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
    service_signature: b64uEncode(new Uint8Array(64)),
  };
  for (const [field, value] of Object.entries(changes)) {
    it(`a changed ${field}`, () => {
      const tampered: Receipt = { ...receipt, [field]: value };
      expect(verifyReceipt(tampered, jwks)).toBe(false);
    });
  }
  it('a flipped signature bit', () => {
    const sig = Buffer.from(receipt.service_signature, 'base64url');
    sig[10] = (sig[10] as number) ^ 1;
    expect(verifyReceipt({ ...receipt, service_signature: sig.toString('base64url') }, jwks)).toBe(false);
  });
  it('a JWKS without the key, or with the kid on another key', () => {
    const other = ed25519Jwk(generateKeyPair().publicKey);
    expect(verifyReceipt(receipt, { keys: [] })).toBe(false);
    expect(verifyReceipt(receipt, { keys: [other] })).toBe(false);
    // An entry that claims the service kid but carries another x: the thumbprint check catches it.
    expect(verifyReceipt(receipt, { keys: [{ ...other, kid: receipt.service_kid }] })).toBe(false);
    expect(verifyReceipt(receipt, { keys: [{ ...service.jwk, crv: 'X25519' }] })).toBe(false);
  });
  it('garbage input without throwing', () => {
    const garbage: [unknown, unknown][] = [
      [null, jwks],
      [{}, jwks],
      ['receipt', jwks],
      [receipt, null],
      [receipt, {}],
      [receipt, { keys: 'x' }],
      [receipt, { keys: [null, 1, 'x', { kid: receipt.service_kid }] }],
      [{ ...receipt, receipt_hash: 'garbage' }, jwks],
      [{ ...receipt, service_signature: 'garbage' }, jwks],
      [{ ...receipt, seq_no: NaN }, jwks],
      [{ ...receipt, seq_no: undefined }, jwks],
    ];
    for (const [r, k] of garbage) {
      expect(() => verifyReceipt(r as Receipt, k as { keys: Jwk[] })).not.toThrow();
      expect(verifyReceipt(r as Receipt, k as { keys: Jwk[] })).toBe(false);
    }
  });
  it('still verifies when the JWKS lists other (e.g. retired) keys too', () => {
    const other = ed25519Jwk(generateKeyPair().publicKey);
    expect(verifyReceipt(receipt, { keys: [other, service.jwk] })).toBe(true);
  });
});

describe('receipt helpers', () => {
  it('round trip with a generated service key; tampering fails', () => {
    const { publicKey, privateKey } = generateKeyPair();
    const jwk = ed25519Jwk(publicKey);
    const unsigned: UnsignedReceipt = {
      receipt_version: RECEIPT_VERSION,
      receipt_id: '01900000-0000-7000-8000-0000000001aa',
      operation_id: '01900000-0000-7000-8000-000000000101',
      org_id: 'org_rt',
      agent_id: 'agent-rt',
      server_received_at: Date.now(),
      seq_no: 7,
      chain_hash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      queue_message_id: 'msg-1',
    };
    const hash = receiptHash(unsigned);
    const r = finishReceipt(unsigned, jwk.kid, sign(privateKey, receiptSigningInput(hash)));
    expect(r.receipt_hash).toBe(hash);
    expect(verifyReceipt(r, { keys: [jwk] })).toBe(true);
    expect(verifyReceipt({ ...r, seq_no: 8 }, { keys: [jwk] })).toBe(false);
    expect(verifyReceipt({ ...r, org_id: 'org_x' }, { keys: [jwk] })).toBe(false);
  });
  it('receiptSigningInput requires 32 bytes of strict b64u', () => {
    for (const bad of ['', 'AAAA', `${receipt.receipt_hash}=`, 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB']) {
      expect(() => receiptSigningInput(bad)).toThrow(expect.objectContaining({ code: 'INVALID_HASH' }) as Error);
    }
  });
  it('finishReceipt requires a 64-byte signature', () => {
    expect(() => finishReceipt(unsignedOf(receipt), receipt.service_kid, new Uint8Array(63))).toThrow(ProtocolError);
  });
});
