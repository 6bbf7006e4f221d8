/**
 * records.json (one agent's chain of four signed operation records from GENESIS) and
 * records-invalid.json (records a verifier refuses). The agent key is RFC 8032 TEST 1's.
 */
import {
  GENESIS,
  b64uEncode,
  chainHash,
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
import { agree, hexBytes } from './agree.js';
import { RFC8032_ED25519 } from './rfc.js';

export type RecordVector = { record: OperationRecord; signing_input: string; record_digest: string; chain_hash: string; seq_no: number };
export type RecordVectors = { genesis: string; agent: { kid: string; seed_hex: string; public_key: string }; records: RecordVector[] };
export type RecordInvalidVector = { name: string; record: OperationRecord; public_key: string; error: 'signature' | 'payload_hash'; why: string };

const AGENT_SEED = RFC8032_ED25519[0].seed;
const OTHER_SEED = RFC8032_ED25519[2].seed;
const KID = 'key-1';

/** The four operations: an object payload, a string, null, and nested members with non-ASCII names. */
const operations: { type: string; verb: string; nonce: string; payload: OperationRecord['payload'] }[] = [
  { type: 'shell.exec', verb: 'exec', nonce: 'qPUTLMZNW0hOArvZJ4IErS', payload: { command: 'rm -rf build', cwd: '/home/dev/app', exit: null, tags: ['shell', 'destructive'], ratio: 0.25 } },
  { type: 'file.write', verb: 'write', nonce: 'nj8VYyTULw6ktvT86B1W-9', payload: 'plain string payload — with unicode ✓' },
  { type: 'net.fetch', verb: 'fetch', nonce: 'dHTB5-2SmvWA_mbkYLBgOW', payload: null },
  { type: 'tool.call', verb: 'call', nonce: '87qeQI4G_PwjQOCG0fEovM', payload: { nested: { deep: { list: [1, 2, 3], empty: {} } }, é: 'accent key', a: 1 } },
];

export function recordVectors(): RecordVectors {
  const key = privateKeyFromSeed(hexBytes(AGENT_SEED));
  const records: RecordVector[] = [];
  let prev = GENESIS;
  operations.forEach((op, i) => {
    const unsigned: UnsignedRecord = {
      op_version: '1.0',
      operation_id: `01900000-0000-7000-8000-00000000000${i + 1}`,
      org_id: 'org_vectors',
      agent_id: 'agent-vectors',
      issued_at: 1767225600000 + i * 1000,
      ttl_ms: 60000,
      nonce: op.nonce,
      operation_type: op.type,
      subject: { kind: 'repository', id: 'acme/app' },
      action: { verb: op.verb, target: `target-${i}` },
      payload: op.payload,
      payload_hash: payloadHash(op.payload),
      prev_chain_hash: prev,
      agent_pubkey_kid: KID,
    };
    const record = signRecord(unsigned, key);
    const chain = chainHash(prev, record);
    records.push({
      record,
      signing_input: new TextDecoder().decode(signingInput(record)),
      record_digest: b64uEncode(recordDigest(record)),
      chain_hash: chain,
      seq_no: i + 1,
    });
    prev = chain;
  });
  const publicKey = b64uEncode(rawPublicKey(key));
  agree('the agent key is RFC 8032 TEST 1', Buffer.from(publicKey, 'base64url').toString('hex'), RFC8032_ED25519[0].publicKey);
  return { genesis: GENESIS, agent: { kid: KID, seed_hex: AGENT_SEED, public_key: publicKey }, records };
}

export function recordInvalidVectors(valid: RecordVectors): RecordInvalidVector[] {
  const first = valid.records[0]!.record;
  const second = valid.records[1]!.record;
  const pub = valid.agent.public_key;
  const sig = Buffer.from(first.signature, 'base64url');
  sig[5] = (sig[5] as number) ^ 0x01;
  const { signature: _drop, ...unsigned } = first;
  const byOther = signRecord(unsigned, privateKeyFromSeed(hexBytes(OTHER_SEED)));
  const out: RecordInvalidVector[] = [
    { name: 'bit flipped in the signature', record: { ...first, signature: b64uEncode(sig) }, public_key: pub, error: 'signature', why: 'the signature does not verify' },
    { name: 'signed by another key', record: byOther, public_key: pub, error: 'signature', why: 'signed with RFC 8032 TEST 3, not the agent key' },
    { name: 'issued_at changed after signing', record: { ...first, issued_at: first.issued_at + 1 }, public_key: pub, error: 'signature', why: 'a signed member changed' },
    { name: 'prev_chain_hash changed after signing', record: { ...second, prev_chain_hash: GENESIS }, public_key: pub, error: 'signature', why: 'the chain link is signed' },
    { name: 'payload changed, payload_hash kept', record: { ...first, payload: { command: 'ls' } }, public_key: pub, error: 'payload_hash', why: 'payload_hash is not the SHA-256 of the canonical payload' },
  ];
  for (const v of out) {
    const refused = v.error === 'signature' ? !verifyRecordSignature(v.record, pub) : payloadHash(v.record.payload) !== v.record.payload_hash && verifyRecordSignature(v.record, pub);
    agree(`records-invalid "${v.name}" fails as ${v.error}`, refused, true);
  }
  return out;
}
